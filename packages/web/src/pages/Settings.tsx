import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, NumberField, TextField } from 'react-aria-components';
import { Link } from 'react-router';
import { api } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, Loading, Page } from '../ui.tsx';

type Watchers = Awaited<ReturnType<typeof api.get<'/settings/watchers'>>>;

function General() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: ['settings'], queryFn: () => api.get('/settings') });
  const [hostname, setHostname] = useState('');
  const [timezone, setTimezone] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!settings.data) return;
    setHostname(settings.data.hostname);
    setTimezone(settings.data.timezone);
  }, [settings.data]);
  const save = useMutation({
    // the passphrase is sent only when typed: omitted keeps the current one
    mutationFn: () =>
      api.put('/settings', {
        body: { hostname, timezone, ...(passphrase ? { backupPassphrase: passphrase } : {}) },
      }),
    onSuccess: (data) => {
      qc.setQueryData(['settings'], data);
      setPassphrase('');
      setSaved(true);
    },
  });
  return (
    <Card title="This appliance" id="general">
      <ErrorNote error={settings.error} />
      {!settings.data ? <Loading what="the settings" /> : null}
      {settings.data ? (
        <Form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            setSaved(false);
            save.mutate();
          }}
        >
          <TextField className="field" value={hostname} onChange={setHostname} isDisabled={readOnly}>
            <Label>Hostname</Label>
            <Input autoComplete="off" spellCheck={false} />
          </TextField>
          <TextField className="field" value={timezone} onChange={setTimezone} isDisabled={readOnly}>
            <Label>Time zone (for example Europe/Paris)</Label>
            <Input autoComplete="off" spellCheck={false} />
          </TextField>
          <p data-testid="passphrase-state">
            Backup passphrase: {settings.data.backupPassphraseSet ? 'set (never shown)' : 'not set'}
          </p>
          <TextField
            className="field"
            value={passphrase}
            onChange={setPassphrase}
            type="password"
            isDisabled={readOnly}
          >
            <Label>
              {settings.data.backupPassphraseSet
                ? 'New backup passphrase (empty keeps it)'
                : 'Backup passphrase'}
            </Label>
            <Input autoComplete="new-password" />
          </TextField>
          <ErrorNote error={save.error} />
          {saved ? <p role="status">Saved.</p> : null}
          <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
            Save settings
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}

function Thresholds({ initial }: { initial: Watchers }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [w, setW] = useState(initial);
  const [saved, setSaved] = useState(false);
  useEffect(() => setW(initial), [initial]);
  const save = useMutation({
    mutationFn: () => api.put('/settings/watchers', { body: w }),
    onSuccess: (data) => {
      qc.setQueryData(['watcher-settings'], data);
      setSaved(true);
    },
  });
  const number = (label: string, value: number, set: (n: number) => void, min = 0) => (
    <NumberField
      className="field"
      value={value}
      onChange={(n) => {
        setSaved(false);
        set(n);
      }}
      minValue={min}
      isDisabled={readOnly}
    >
      <Label>{label}</Label>
      <Input />
    </NumberField>
  );
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      {number('Pool used: warn above (%)', w.space.poolUsedPercent, (n) =>
        setW({ ...w, space: { ...w.space, poolUsedPercent: n } }),
      )}
      {number('Cache used: warn above (%)', w.space.cacheUsedPercent, (n) =>
        setW({ ...w, space: { ...w.space, cacheUsedPercent: n } }),
      )}
      {number('Disk temperature: warn above (°C)', w.smart.temperatureC, (n) =>
        setW({ ...w, smart: { ...w.smart, temperatureC: n } }),
      )}
      {number('Reallocated sectors: warn above', w.smart.reallocatedSectors, (n) =>
        setW({ ...w, smart: { ...w.smart, reallocatedSectors: n } }),
      )}
      {number('Certificate: warn this many days before it expires', w.certificateDays, (n) =>
        setW({ ...w, certificateDays: n }),
      )}
      {number('Disk check every (seconds)', w.intervals.disks, (n) =>
        setW({ ...w, intervals: { ...w.intervals, disks: n } }),
      )}
      {number('Space check every (seconds)', w.intervals.space, (n) =>
        setW({ ...w, intervals: { ...w.intervals, space: n } }),
      )}
      <ErrorNote error={save.error} />
      {saved ? <p role="status">Thresholds saved.</p> : null}
      <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
        Save thresholds
      </Button>
    </Form>
  );
}

export function Settings() {
  const watchers = useQuery({ queryKey: ['watcher-settings'], queryFn: () => api.get('/settings/watchers') });
  return (
    <Page title="Settings">
      <div className="grid">
        <General />
        <Card title="Watcher thresholds" id="thresholds">
          <ErrorNote error={watchers.error} />
          {!watchers.data ? <Loading what="the thresholds" /> : <Thresholds initial={watchers.data} />}
        </Card>
        <Card title="Parity schedule" id="parity-schedule">
          <p>
            The nightly sync, the scrub and the deletion guard are set on the{' '}
            <Link to="/parity">parity page</Link>.
          </p>
        </Card>
      </div>
    </Page>
  );
}
