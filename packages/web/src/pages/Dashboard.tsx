import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, formatTime, jobTitle } from '../api.ts';
import { Card, ErrorNote, JobBar, KeyValues, Loading, Page, StateBadge } from '../ui.tsx';

export const useHealth = () =>
  useQuery({ queryKey: ['health'], queryFn: () => api.get('/health'), refetchInterval: 10_000 });
/** Re-read every 5 s: a disk that goes offline sends no event (the slot's `mounted` is read live). */
export const useArray = () =>
  useQuery({ queryKey: ['array'], queryFn: () => api.get('/disks/array'), refetchInterval: 5_000 });
/** A parity job that is still queued or running (an ended job can linger in `running` a moment). */
export const activeJob = <J extends { state: string }>(j: J | null | undefined): J | null =>
  j && (j.state === 'running' || j.state === 'queued') ? j : null;
/**
 * While a job runs, also re-read every 5 s: its end is normally seen on `GET /events`, but the
 * service reads a job as running until its follow-up is done, so the read right after the `done`
 * event can still show it (and an event missed while reconnecting must not freeze the page).
 */
export const useParity = () =>
  useQuery({
    queryKey: ['parity'],
    queryFn: () => api.get('/disks/array/parity'),
    refetchInterval: (q) => (q.state.data?.running ? 5_000 : false),
  });
export const useJobs = () =>
  useQuery({ queryKey: ['jobs'], queryFn: () => api.get('/jobs', { query: { limit: '50' } }) });
export const useAlerts = () =>
  useQuery({
    queryKey: ['alerts'],
    queryFn: () => api.get('/notifications/alerts', { query: { limit: '10' } }),
  });

export function parityWords(state: string): string {
  return (
    {
      not_configured: 'no parity disk',
      never_synced: 'never synced',
      in_sync: 'in sync',
      changes_pending: 'changes pending',
    }[state] ?? state
  );
}

export function Dashboard() {
  const health = useHealth();
  const array = useArray();
  const parity = useParity();
  const jobs = useJobs();
  const alerts = useAlerts();
  const running = jobs.data?.jobs.filter((j) => j.state === 'running' || j.state === 'queued') ?? [];
  const degraded = health.data?.conditions.some(
    (c) => c.eventType === 'array_degraded' || c.eventType === 'disk_offline',
  );
  return (
    <Page title="Dashboard">
      <div className="grid">
        <Card title="Array" id="array">
          <ErrorNote error={array.error} />
          {array.data ? (
            array.data.configured ? (
              <>
                <p>
                  <StateBadge state={degraded ? 'degraded' : 'healthy'} /> {array.data.disks.length} disks,
                  pool {array.data.poolMounted ? 'mounted' : 'not mounted'}
                </p>
                <ul className="slots">
                  {array.data.disks.map((d) => (
                    <li key={d.id}>
                      <strong>{d.mountpoint}</strong> {d.role} · {d.device} ·{' '}
                      {d.mounted ? 'online' : <span className="bad">offline</span>}
                    </li>
                  ))}
                </ul>
              </>
            ) : (
              <p>
                No array yet. <Link to="/disks">Set it up on the Disks page</Link>.
              </p>
            )
          ) : (
            <Loading what="the array" />
          )}
        </Card>
        <Card title="Parity" id="parity">
          <ErrorNote error={parity.error} />
          {parity.data ? (
            <>
              <p data-testid="parity-state">
                <StateBadge state={parity.data.parity} />{' '}
                <span className="sr-only">{parityWords(parity.data.parity)}</span>
              </p>
              <KeyValues
                rows={[
                  ['Last sync', formatTime(parity.data.lastSuccessfulSyncAt)],
                  ['Next sync', formatTime(parity.data.next.sync)],
                  ['Last scrub', formatTime(parity.data.lastScrub?.endedAt ?? null)],
                  ['Next scrub', formatTime(parity.data.next.scrub)],
                ]}
              />
            </>
          ) : (
            <Loading what="parity" />
          )}
        </Card>
        <Card title="Running jobs" id="jobs">
          <ErrorNote error={jobs.error} />
          {running.length === 0 ? <p className="muted">Nothing running.</p> : null}
          {running.map((j) => (
            <div key={j.id} className="job-row">
              <Link to={`/jobs/${j.id}`}>{jobTitle(j.type)}</Link>
              <JobBar
                label={`${jobTitle(j.type)}${j.phase ? ` — ${j.phase}` : ''}`}
                percent={j.percent}
                bytesDone={j.bytesDone}
                bytesTotal={j.bytesTotal}
                etaSeconds={j.etaSeconds}
              />
            </div>
          ))}
        </Card>
        <Card title="Health" id="health">
          <ErrorNote error={health.error} />
          {health.data ? (
            <>
              {health.data.conditions.length === 0 ? (
                <p>No open conditions.</p>
              ) : (
                <ul className="conditions">
                  {health.data.conditions.map((c) => (
                    <li key={c.key} className="bad">
                      <strong>{c.title}</strong>: {c.message}{' '}
                      <span className="muted">since {formatTime(c.since)}</span>
                    </li>
                  ))}
                </ul>
              )}
              <table className="table">
                <caption className="sr-only">Watchers</caption>
                <thead>
                  <tr>
                    <th scope="col">Watcher</th>
                    <th scope="col">Last run</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {health.data.watchers.map((w) => (
                    <tr key={w.name}>
                      <td>{w.name}</td>
                      <td>{formatTime(w.lastRunAt)}</td>
                      <td>
                        {!w.enabled ? 'off' : w.error ? <span className="bad">{w.error.message}</span> : 'ok'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : (
            <Loading what="health" />
          )}
        </Card>
        <Card title="Latest alerts" id="alerts">
          <ErrorNote error={alerts.error} />
          {alerts.data?.alerts.length === 0 ? <p className="muted">No alerts.</p> : null}
          <ul className="alerts">
            {alerts.data?.alerts.map((a) => (
              <li key={a.id}>
                <StateBadge state={a.severity} /> <strong>{a.title}</strong> — {a.message}{' '}
                <span className="muted">{formatTime(a.occurredAt)}</span>
              </li>
            ))}
          </ul>
        </Card>
      </div>
    </Page>
  );
}
