import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { api } from './api.ts';

type Job = {
  id: string;
  phase: string | null;
  percent: number | null;
  bytesDone: number | null;
  bytesTotal: number | null;
  etaSeconds: number | null;
};

const LiveContext = createContext<'connecting' | 'live' | 'reconnecting'>('connecting');
export const useLive = () => useContext(LiveContext);

/**
 * `GET /events` for the whole signed-in shell: job progress patches the cached jobs at once, a
 * finished job or a new alert refetches what it changed. The stream reopens after a restart; on
 * reopening everything is refetched (events sent while it was down are not replayed).
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  useEffect(() => {
    let wasDown = false;
    const patch = (id: string, p: Record<string, unknown>) => {
      const apply = (j: Job): Job =>
        j.id !== id
          ? j
          : {
              ...j,
              phase: (p['phase'] as string | null | undefined) ?? j.phase,
              percent: (p['percent'] as number | null | undefined) ?? j.percent,
              bytesDone: (p['bytesDone'] as number | null | undefined) ?? j.bytesDone,
              bytesTotal: (p['bytesTotal'] as number | null | undefined) ?? j.bytesTotal,
              etaSeconds: (p['etaSeconds'] as number | null | undefined) ?? j.etaSeconds,
            };
      qc.setQueryData<{ jobs: Job[] }>(['jobs'], (old) =>
        old ? { ...old, jobs: old.jobs.map(apply) } : old,
      );
      qc.setQueryData<Job>(['job', id], (old) => (old ? apply(old) : old));
      qc.setQueryData<{ running: Job | null }>(['parity'], (old) =>
        old?.running ? { ...old, running: apply(old.running) } : old,
      );
    };
    const live = api.events({
      onOpen: () => {
        setState('live');
        if (wasDown) void qc.invalidateQueries();
        wasDown = false;
      },
      onError: () => {
        wasDown = true;
        setState('reconnecting');
      },
      onProgress: (e) => {
        const id = (e.progress['jobId'] as string | undefined) ?? e.operationId;
        patch(id, e.progress);
        if (e.done || e.progress['phase'] !== undefined) {
          void qc.invalidateQueries({ queryKey: ['jobs'] });
          void qc.invalidateQueries({ queryKey: ['job', id] });
        }
        if (e.done) {
          for (const key of ['parity', 'array', 'disks', 'health', 'diff'])
            void qc.invalidateQueries({ queryKey: [key] });
        }
      },
      onNotification: () => {
        void qc.invalidateQueries({ queryKey: ['alerts'] });
        void qc.invalidateQueries({ queryKey: ['health'] });
      },
    });
    return () => live.close();
  }, [qc]);
  return <LiveContext.Provider value={state}>{children}</LiveContext.Provider>;
}
