import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Checkbox, Form, Input, Label, NumberField, TextField } from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatBytes, formatTime, jobTitle } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import {
  Card,
  ConfirmDialog,
  ErrorNote,
  JobBar,
  KeyValues,
  Loading,
  Page,
  Scroll,
  StateBadge,
} from '../ui.tsx';
import { activeJob, parityWords, useParity } from './Dashboard.tsx';

/** Typed before a forced sync: the removal becomes final (the API itself asks only `force: true`). */
export const FORCE_PHRASE = 'SYNC ANYWAY';

type Settings = Awaited<ReturnType<typeof api.get<'/settings/parity'>>>;

function SettingsForm({ initial, readOnly }: { initial: Settings; readOnly: boolean }) {
  const qc = useQueryClient();
  const [s, setS] = useState(initial);
  const [saved, setSaved] = useState(false);
  useEffect(() => setS(initial), [initial]);
  const save = useMutation({
    mutationFn: () => api.put('/settings/parity', { body: s }),
    onSuccess: (data) => {
      qc.setQueryData(['parity-settings'], data);
      setSaved(true);
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
      <Checkbox
        className="checkbox"
        isSelected={s.syncEnabled}
        onChange={(v) => set('syncEnabled', v)}
        isDisabled={readOnly}
      >
        <span className="box" aria-hidden="true" />
        Nightly sync
      </Checkbox>
      <TextField
        className="field"
        value={s.syncTime}
        onChange={(v) => set('syncTime', v)}
        isDisabled={readOnly}
      >
        <Label>Sync time (HH:MM)</Label>
        <Input />
      </TextField>
      <Checkbox
        className="checkbox"
        isSelected={s.scrubEnabled}
        onChange={(v) => set('scrubEnabled', v)}
        isDisabled={readOnly}
      >
        <span className="box" aria-hidden="true" />
        Scheduled scrub
      </Checkbox>
      <NumberField
        className="field"
        value={s.scrubEveryDays}
        onChange={(v) => set('scrubEveryDays', v)}
        minValue={1}
        isDisabled={readOnly}
      >
        <Label>Scrub every (days)</Label>
        <Input />
      </NumberField>
      <NumberField
        className="field"
        value={s.deleteThreshold}
        onChange={(v) => set('deleteThreshold', v)}
        minValue={0}
        isDisabled={readOnly}
      >
        <Label>Deletion guard: block a sync that removes more than (files)</Label>
        <Input />
      </NumberField>
      <ErrorNote error={save.error} />
      {saved ? <p role="status">Saved.</p> : null}
      <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
        Save settings
      </Button>
    </Form>
  );
}

export function Parity() {
  const parity = useParity();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const diff = useQuery({ queryKey: ['diff'], queryFn: () => api.get('/disks/array/parity/diff') });
  const settings = useQuery({ queryKey: ['parity-settings'], queryFn: () => api.get('/settings/parity') });
  const [percent, setPercent] = useState(8);
  const [olderThan, setOlderThan] = useState(10);
  const started = () => {
    void qc.invalidateQueries({ queryKey: ['parity'] });
    void qc.invalidateQueries({ queryKey: ['jobs'] });
  };
  const sync = useMutation({
    mutationFn: () => api.post('/disks/array/parity/sync', { body: {} }),
    onSuccess: started,
  });
  const scrub = useMutation({
    mutationFn: () => api.post('/disks/array/parity/scrub', { body: { percent, olderThanDays: olderThan } }),
    onSuccess: started,
  });
  const p = parity.data;
  const running = activeJob(p?.running);
  const removed = diff.data?.diff?.paths.removed ?? [];
  const blocked = Boolean(p?.blockedSince) || p?.lastSync?.state === 'blocked';
  return (
    <Page title="Parity">
      <ErrorNote error={parity.error} />
      {!p ? <Loading what="parity" /> : null}
      {p ? (
        <div className="grid">
          <Card title="State" id="parity-state">
            <p data-testid="parity-state">
              <StateBadge state={p.parity} /> <span className="sr-only">{parityWords(p.parity)}</span>
            </p>
            <KeyValues
              rows={[
                ['Last successful sync', formatTime(p.lastSuccessfulSyncAt)],
                [
                  'Last sync',
                  p.lastSync
                    ? `${p.lastSync.state}${p.lastSync.forced ? ' (forced)' : ''}, ${formatBytes(p.lastSync.bytes)}`
                    : 'never',
                ],
                ['Next sync', formatTime(p.next.sync)],
                [
                  'Last scrub',
                  p.lastScrub ? `${p.lastScrub.state}, ${formatTime(p.lastScrub.endedAt)}` : 'never',
                ],
                [
                  'Oldest scrubbed data',
                  p.oldestScrubAgeDays === null ? '—' : `${p.oldestScrubAgeDays} days`,
                ],
                ['Next scrub', formatTime(p.next.scrub)],
              ]}
            />
            {p.lastSync?.error ? <p className="error">{p.lastSync.error.message}</p> : null}
            {running ? (
              <>
                <JobBar
                  label={`${jobTitle(running.type)}${running.phase ? ` — ${running.phase}` : ''}`}
                  percent={running.percent}
                  bytesDone={running.bytesDone}
                  bytesTotal={running.bytesTotal}
                  etaSeconds={running.etaSeconds}
                />
                <Link to={`/jobs/${running.id}`}>Job details</Link>
              </>
            ) : null}
            <div className="actions">
              <Button
                className="button primary"
                isDisabled={readOnly || !p.configured || sync.isPending || Boolean(running)}
                onPress={() => sync.mutate()}
              >
                Sync now
              </Button>
            </div>
            <ErrorNote error={sync.error} />
          </Card>
          <Card title="Scrub" id="scrub">
            <Form
              className="form"
              onSubmit={(e) => {
                e.preventDefault();
                scrub.mutate();
              }}
            >
              <NumberField
                className="field"
                value={percent}
                onChange={setPercent}
                minValue={1}
                maxValue={100}
                isDisabled={readOnly}
              >
                <Label>Percent of the array</Label>
                <Input />
              </NumberField>
              <NumberField
                className="field"
                value={olderThan}
                onChange={setOlderThan}
                minValue={0}
                isDisabled={readOnly}
              >
                <Label>Only data not scrubbed for (days)</Label>
                <Input />
              </NumberField>
              <ErrorNote error={scrub.error} />
              <Button
                type="submit"
                className="button"
                isDisabled={readOnly || !p.configured || scrub.isPending || Boolean(running)}
              >
                Scrub now
              </Button>
            </Form>
          </Card>
          <Card title="Changes since the last sync" id="diff">
            <ErrorNote error={diff.error} />
            {diff.data?.diff ? (
              <>
                <p>
                  {diff.data.diff.added} added, {diff.data.diff.removed} removed, {diff.data.diff.updated}{' '}
                  updated, {diff.data.diff.moved} moved ({formatTime(diff.data.diff.at)})
                </p>
                {blocked ? (
                  <p className="error" role="alert" data-testid="guard">
                    The last sync was held back by the deletion guard: {diff.data.diff.removed} files were
                    removed. Check the paths below; if the removal was intended, sync anyway.
                  </p>
                ) : null}
                {removed.length > 0 ? (
                  <>
                    <h3>Removed files</h3>
                    <Scroll label="Removed files">
                      <ul className="paths" data-testid="removed-paths">
                        {removed.map((r) => (
                          <li key={r}>
                            <code>{r}</code>
                          </li>
                        ))}
                      </ul>
                    </Scroll>
                  </>
                ) : null}
                {blocked ? (
                  <ConfirmDialog
                    trigger="Sync anyway"
                    title="Sync with these files removed?"
                    phrase={FORCE_PHRASE}
                    confirmLabel="Sync anyway"
                    danger
                    isDisabled={readOnly || Boolean(running)}
                    onConfirm={async () => {
                      await api.post('/disks/array/parity/sync', { body: { force: true } });
                      started();
                    }}
                  >
                    <p>
                      After this sync the {removed.length} removed files can no longer be recovered from
                      parity.
                    </p>
                  </ConfirmDialog>
                ) : null}
              </>
            ) : (
              <p className="muted">No diff yet (a sync runs one first).</p>
            )}
          </Card>
          <Card title="Settings" id="parity-settings">
            <ErrorNote error={settings.error} />
            {settings.data ? (
              <SettingsForm initial={settings.data} readOnly={readOnly} />
            ) : (
              <Loading what="settings" />
            )}
          </Card>
        </div>
      ) : null}
    </Page>
  );
}
