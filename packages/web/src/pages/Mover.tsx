import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatBytes, formatTime } from '../api.ts';
import { Check, Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, KeyValues, Loading, Page, Scroll, StateBadge } from '../ui.tsx';
import { JobLine } from './JobLine.tsx';

type Status = Awaited<ReturnType<typeof api.get<'/mover'>>>;
type Verify = Status['settings']['verify'];

const VERIFY: ReadonlyArray<readonly [Verify, string]> = [
  ['size-mtime', 'size and modification time'],
  ['sha256', 'SHA-256 of both copies (slower)'],
];

/** Why a file stayed on the cache, in words. */
export const REASONS: Record<string, string> = {
  open_for_writing: 'open for writing',
  exists_on_array: 'already on a data disk',
  no_space: 'no data disk with room',
  changed_during_move: 'changed while it was moved',
  copy_failed: 'the copy failed',
};

function LastRun({ last }: { last: NonNullable<Status['lastRun']> }) {
  const byReason = Object.entries(last.skippedByReason ?? {})
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${n} ${REASONS[r] ?? r}`)
    .join(', ');
  return (
    <>
      <KeyValues
        rows={[
          [
            'State',
            <span key="s" data-testid="mover-last-state">
              <StateBadge state={last.state} /> (<Link to={`/jobs/${last.jobId}`}>job</Link>,{' '}
              {last.trigger === 'schedule' ? 'scheduled' : 'on demand'})
            </span>,
          ],
          ['Ended', formatTime(last.endedAt)],
          [
            'Moved',
            <span key="m" data-testid="mover-moved">
              {last.movedFiles ?? 0} file(s), {formatBytes(last.movedBytes ?? 0)}
            </span>,
          ],
          [
            'Kept on the cache',
            <span key="k" data-testid="mover-skipped">
              {last.skippedCount ?? 0} file(s){byReason ? `: ${byReason}` : ''}
            </span>,
          ],
        ]}
      />
      {last.error ? (
        <p className="error" role="alert">
          {last.error.message}
        </p>
      ) : null}
      {last.skipped.length > 0 ? (
        <Scroll label="Files kept on the cache">
          <table className="table" data-testid="mover-skipped-files">
            <caption className="sr-only">Files kept on the cache and why</caption>
            <thead>
              <tr>
                <th scope="col">Share</th>
                <th scope="col">Path</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {last.skipped.map((s) => (
                <tr key={`${s.share}/${s.path}`}>
                  <td>{s.share}</td>
                  <td>
                    <code>{s.path}</code>
                  </td>
                  <td>{REASONS[s.reason] ?? s.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
    </>
  );
}

function MoverSettings({ initial }: { initial: Status['settings'] }) {
  const readOnly = useReadOnly();
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
  const edit = (next: Partial<Status['settings']>) => {
    setSaved(false);
    setS({ ...s, ...next });
  };
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <Check value={s.enabled} onChange={(enabled) => edit({ enabled })} isDisabled={readOnly}>
        Run daily (before the parity sync)
      </Check>
      <TextField className="field" value={s.time} onChange={(time) => edit({ time })} isDisabled={readOnly}>
        <Label>Daily at (HH:MM, 24-hour, the appliance's time zone)</Label>
        <Input autoComplete="off" spellCheck={false} />
      </TextField>
      <Choice
        label="Verify each copy by"
        value={s.verify}
        options={VERIFY}
        onChange={(verify) => edit({ verify })}
        isDisabled={readOnly}
      />
      <ErrorNote error={save.error} />
      {saved ? <p role="status">Mover settings saved.</p> : null}
      <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
        Save mover settings
      </Button>
    </Form>
  );
}

export function Mover() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const status = useQuery({ queryKey: ['mover'], queryFn: () => api.get('/mover') });
  const [jobId, setJobId] = useState<string | null>(null);
  const run = useMutation({
    mutationFn: () => api.post('/mover/run', { body: {} }),
    onSuccess: (j) => setJobId(j.id),
  });
  const ended = useCallback(() => void qc.invalidateQueries({ queryKey: ['mover'] }), [qc]);
  const d = status.data;
  const following = jobId ?? d?.running?.id ?? null;
  return (
    <Page title="Mover">
      <div className="grid">
        <Card title="Cache to data disks" id="mover">
          <ErrorNote error={status.error} />
          {!d ? <Loading what="the mover" /> : null}
          {d ? (
            <>
              <p>
                {d.configured
                  ? 'Files written to the cache by cache-then-move shares move to the data disks, daily and on demand.'
                  : 'This array has no cache disk: the mover has nothing to move.'}
              </p>
              <KeyValues
                rows={[
                  [
                    'Shares it moves',
                    d.shares.length ? d.shares.join(', ') : 'none (no cache-then-move share)',
                  ],
                  [
                    'Next run',
                    <span key="n" data-testid="mover-next">
                      {d.settings.enabled ? formatTime(d.nextRun) : 'not scheduled (daily run off)'}
                    </span>,
                  ],
                ]}
              />
              <div className="actions">
                <Button
                  className="button primary"
                  isDisabled={readOnly || run.isPending || d.running !== null}
                  onPress={() => run.mutate()}
                >
                  Run now
                </Button>
              </div>
              <ErrorNote error={run.error} />
              {following ? <JobLine key={following} id={following} testId="mover-job" onEnd={ended} /> : null}
              <h3>Last run</h3>
              {d.lastRun ? <LastRun last={d.lastRun} /> : <p>The mover has not run yet.</p>}
            </>
          ) : null}
        </Card>
        <Card title="Schedule and verification" id="mover-settings">
          {d ? <MoverSettings initial={d.settings} /> : <Loading what="the settings" />}
        </Card>
      </div>
    </Page>
  );
}
