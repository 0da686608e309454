import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatBytes, formatTime } from '../api.ts';
import { Check, Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, JobBar, KeyValues, Loading, Page, Scroll, StateBadge } from '../ui.tsx';

type Settings = Awaited<ReturnType<typeof api.get<'/settings/mover'>>>;
type Verify = Settings['verify'];

const VERIFY: ReadonlyArray<readonly [Verify, string]> = [
  ['size-mtime', 'size and modification time'],
  ['sha256', 'also SHA-256 of both copies (slower)'],
];

const REASONS: Record<string, string> = {
  open_for_writing: 'open for writing',
  exists_on_array: 'already on a data disk',
  no_space: 'no data disk with room',
  changed_during_move: 'changed while it was moved',
  copy_failed: 'the copy failed',
};

function SettingsForm({ initial, readOnly }: { initial: Settings; readOnly: boolean }) {
  const qc = useQueryClient();
  const [s, setS] = useState(initial);
  const [saved, setSaved] = useState(false);
  useEffect(() => setS(initial), [initial]);
  const save = useMutation({
    mutationFn: () => api.put('/settings/mover', { body: s }),
    onSuccess: () => {
      setSaved(true);
      void qc.invalidateQueries({ queryKey: ['mover'] });
    },
  });
  const set = <K extends keyof Settings>(k: K, v: Settings[K]) => {
    setSaved(false);
    setS((o) => ({ ...o, [k]: v }));
  };
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <Check value={s.enabled} onChange={(v) => set('enabled', v)} isDisabled={readOnly}>
        Run daily (before the parity sync)
      </Check>
      <TextField className="field" value={s.time} onChange={(v) => set('time', v)} isDisabled={readOnly}>
        <Label>Time (HH:MM)</Label>
        <Input />
      </TextField>
      <Choice
        label="Verify each copy by"
        value={s.verify}
        options={VERIFY}
        onChange={(v) => set('verify', v)}
        isDisabled={readOnly}
      />
      <ErrorNote error={save.error} />
      {saved ? <p role="status">Saved.</p> : null}
      <Button type="submit" className="button" isDisabled={readOnly || save.isPending}>
        Save schedule
      </Button>
    </Form>
  );
}

/** `/mover`: what the mover did last (moved, skipped and why), its job live, run now, its schedule. */
export function Mover() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const mover = useQuery({
    queryKey: ['mover'],
    queryFn: () => api.get('/mover'),
    refetchInterval: (q) => (q.state.data?.running ? 3_000 : false),
  });
  const [verify, setVerify] = useState<Verify | null>(null);
  const m = mover.data;
  const runNow = useMutation({
    mutationFn: () => api.post('/mover/run', { body: verify ? { verify } : {} }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['mover'] }),
  });
  // its job's progress comes on GET /events (the jobs cache); its end re-reads the status
  const job = useQuery({
    queryKey: ['job', m?.running?.id ?? ''],
    queryFn: () => api.get('/jobs/{id}', { params: { id: m!.running!.id } }),
    enabled: Boolean(m?.running),
  });
  const ended = job.data && !['running', 'queued'].includes(job.data.state) ? job.data.id : null;
  useEffect(() => {
    if (ended) void qc.invalidateQueries({ queryKey: ['mover'] });
  }, [ended, qc]);
  const last = m?.lastRun;
  const running = job.data && ['running', 'queued'].includes(job.data.state) ? job.data : null;
  return (
    <Page title="Mover">
      <ErrorNote error={mover.error} />
      {!m ? <Loading what="the mover" /> : null}
      {m ? (
        <div className="grid">
          <Card title="Mover" id="mover">
            <p>
              Moves the files of cache-then-move shares from the cache to the data disks, where parity
              protects them.
            </p>
            <KeyValues
              rows={[
                ['Cache disk', m.configured ? 'yes' : 'none (nothing to move)'],
                ['Shares it moves', m.shares.length > 0 ? m.shares.join(', ') : 'none'],
                ['Next run', formatTime(m.nextRun)],
              ]}
            />
            {running ? (
              <>
                <JobBar
                  label={`mover${running.phase ? ` — ${running.phase}` : ''}`}
                  percent={running.percent}
                  bytesDone={running.bytesDone}
                  bytesTotal={running.bytesTotal}
                  etaSeconds={running.etaSeconds}
                />
                <Link to={`/jobs/${running.id}`}>Job details</Link>
              </>
            ) : null}
            <Choice
              label="Verify this run by"
              value={verify ?? m.settings.verify}
              options={VERIFY}
              onChange={setVerify}
              isDisabled={readOnly}
            />
            <ErrorNote error={runNow.error} />
            <div className="actions">
              <Button
                className="button primary"
                isDisabled={readOnly || runNow.isPending || Boolean(running)}
                onPress={() => runNow.mutate()}
              >
                Run the mover now
              </Button>
            </div>
          </Card>
          <Card title="Last run" id="mover-last">
            {!last ? (
              <p className="muted">The mover has not run yet.</p>
            ) : (
              <div data-testid="mover-last">
                <p>
                  <StateBadge state={last.state} /> {formatTime(last.endedAt)} ({last.trigger}) ·{' '}
                  <Link to={`/jobs/${last.jobId}`}>Job</Link>
                </p>
                {last.error ? <p className="error">{last.error.message}</p> : null}
                <p data-testid="mover-moved">
                  {last.movedFiles ?? 0} files moved ({formatBytes(last.movedBytes ?? 0)}),{' '}
                  {last.skippedCount ?? 0} skipped
                </p>
                {last.skipped.length > 0 ? (
                  <Scroll label="Skipped files">
                    <table className="table">
                      <caption className="sr-only">Skipped files</caption>
                      <thead>
                        <tr>
                          <th scope="col">Share</th>
                          <th scope="col">File</th>
                          <th scope="col">Why</th>
                        </tr>
                      </thead>
                      <tbody>
                        {last.skipped.map((x) => (
                          <tr key={`${x.share}/${x.path}`}>
                            <td>{x.share}</td>
                            <td>
                              <code>{x.path}</code>
                            </td>
                            <td>{REASONS[x.reason] ?? x.reason}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scroll>
                ) : null}
              </div>
            )}
          </Card>
          <Card title="Schedule" id="mover-settings">
            <SettingsForm initial={m.settings} readOnly={readOnly} />
          </Card>
        </div>
      ) : null}
    </Page>
  );
}
