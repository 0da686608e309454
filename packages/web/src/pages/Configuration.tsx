import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, FileTrigger, Form, Input, Label, TextField } from 'react-aria-components';
import { api, saveFile } from '../api.ts';
import { forgetArchive, handedArchive } from '../archive-handoff.ts';
import { Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, KeyValues, Page } from '../ui.tsx';

type Preview = Awaited<ReturnType<typeof api.upload<'/config/import/preview'>>>;
type Imported = Awaited<ReturnType<typeof api.upload<'/config/import'>>>;
type BareMetal = NonNullable<Preview['bareMetal']>;
/** Slot (`role:index`) → the device chosen for it, or `LEAVE_OUT`. */
type Mapping = Record<string, string>;

const LEAVE_OUT = 'leave-out';
const slotKey = (d: { role: string; roleIndex: number }) => `${d.role}:${d.roleIndex}`;

/** The mapping the preview proposes: every matched slot → its device; every other slot left out. */
export function proposedMapping(bareMetal: BareMetal): Mapping {
  const m: Mapping = {};
  for (const d of bareMetal.disks) m[slotKey(d)] = LEAVE_OUT;
  for (const e of bareMetal.diskMapping.disks) m[slotKey(e)] = e.device;
  return m;
}

/** The `diskMapping` part the import sends: the chosen slots, in the preview's slot order. */
export function mappingBody(bareMetal: BareMetal, mapping: Mapping) {
  return {
    disks: bareMetal.disks.flatMap((d) => {
      const device = mapping[slotKey(d)];
      return device && device !== LEAVE_OUT ? [{ role: d.role, roleIndex: d.roleIndex, device }] : [];
    }),
  };
}

/** The phrase `POST /config/import` asks for (its refusal names it too). */
export const restorePhrase = (hostname: string) => `RESTORE ${hostname}`;

function Export() {
  const readOnly = useReadOnly();
  const [saved, setSaved] = useState<string | null>(null);
  const exp = useMutation({
    mutationFn: () => api.download('/config/export'),
    onSuccess: ({ blob, filename }) => {
      const name = filename ?? 'appliance-config.tar.zst';
      saveFile(blob, name);
      setSaved(name);
    },
  });
  return (
    <Card title="Export" id="export">
      <p>
        The whole configuration in one archive (database, secrets sealed with the backup passphrase, app
        folders). Keep it somewhere safe: it is what a new box imports.
      </p>
      <ErrorNote error={exp.error} />
      {saved ? <p role="status">Downloaded {saved}.</p> : null}
      <Button className="button primary" onPress={() => exp.mutate()} isDisabled={readOnly || exp.isPending}>
        Download the configuration
      </Button>
    </Card>
  );
}

function PreviewView({
  preview,
  mapping,
  onMapping,
}: {
  preview: Preview;
  mapping: Mapping;
  onMapping: (m: Mapping) => void;
}) {
  const readOnly = useReadOnly();
  // the disks the preview found on this box: each slot may take one of them, or none
  const found = [...new Set((preview.bareMetal?.disks ?? []).flatMap((d) => (d.device ? [d.device] : [])))];
  return (
    <div data-testid="import-preview">
      <KeyValues
        rows={[
          ['Archive of', `${preview.archive.hostname}, ${preview.archive.createdAt}`],
          ['Made by version', preview.archive.appVersion],
          ['Schema', `${preview.archive.schemaVersion} (this box: ${preview.liveSchemaVersion})`],
          ['Secrets', `${preview.secrets.status}`],
        ]}
      />
      <h3>Blockers</h3>
      {preview.blockers.length === 0 ? (
        <p data-testid="no-blockers">None: this archive can be imported.</p>
      ) : (
        <ul>
          {preview.blockers.map((b) => (
            <li key={b.code} className="error">
              {b.message}
            </li>
          ))}
        </ul>
      )}
      <h3>What would change</h3>
      <ul data-testid="import-groups">
        {preview.groups.map((g) => (
          <li key={g.category}>
            <strong>{g.category}</strong>: {g.added.length} added, {g.changed.length} changed,{' '}
            {g.removed.length} removed
          </li>
        ))}
      </ul>
      {preview.bareMetal ? (
        <>
          <h3>Disks of the archive on this box</h3>
          <p>
            This box is new: the import mounts each slot's disk where the archive's array expects it. The
            disks found are proposed; choose another or leave a slot out (it stays unmounted, the array
            degraded). Only a disk the preview matched to that slot is accepted.
          </p>
          <table className="table" data-testid="disk-mapping">
            <caption className="sr-only">Disk mapping</caption>
            <thead>
              <tr>
                <th scope="col">Slot</th>
                <th scope="col">Disk of the archive</th>
                <th scope="col">Found here</th>
                <th scope="col">Mount</th>
              </tr>
            </thead>
            <tbody>
              {preview.bareMetal.disks.map((d) => (
                <tr key={`${d.role}${d.roleIndex}`}>
                  <td>
                    {d.mountpoint} ({d.role})
                  </td>
                  <td>{d.byIdName ?? d.serial ?? d.fsUuid}</td>
                  <td className={d.state === 'matched' ? undefined : 'bad'}>
                    {d.device ?? '—'} ({d.state})
                  </td>
                  <td>
                    <Choice
                      label={`Disk for ${d.mountpoint}`}
                      hideLabel
                      value={mapping[slotKey(d)] ?? LEAVE_OUT}
                      options={[
                        [LEAVE_OUT, 'Leave out'] as const,
                        ...found.map((dev) => [dev, dev] as const),
                      ]}
                      onChange={(v) => onMapping({ ...mapping, [slotKey(d)]: v })}
                      isDisabled={readOnly}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {preview.notes.length > 0 ? (
        <>
          <h3>Notes</h3>
          <ul>
            {preview.notes.map((n) => (
              <li key={n.code}>{n.message}</li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

function ImportPreview() {
  const readOnly = useReadOnly();
  // a snapshot's archive chosen on /backups arrives chosen already
  const [file, setFile] = useState<File | null>(handedArchive);
  useEffect(() => forgetArchive(), []);
  const [passphrase, setPassphrase] = useState('');
  const [imported, setImported] = useState<Imported | null>(null);
  const [mapping, setMapping] = useState<Mapping>({});
  const form = (extra: Record<string, string> = {}) => {
    const f = new FormData();
    if (passphrase) f.append('passphrase', passphrase);
    for (const [k, v] of Object.entries(extra)) f.append(k, v);
    f.append('archive', file!);
    return f;
  };
  const preview = useMutation({
    mutationFn: () => {
      setImported(null);
      return api.upload('/config/import/preview', form());
    },
    onSuccess: (r) => setMapping(r.bareMetal ? proposedMapping(r.bareMetal) : {}),
  });
  const p = preview.data;
  return (
    <Card title="Import" id="import">
      <p>What an archive would change here is shown first; nothing is imported before you confirm.</p>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          preview.mutate();
        }}
      >
        <FileTrigger
          acceptedFileTypes={['.zst', 'application/zstd']}
          onSelect={(f) => setFile(f?.[0] ?? null)}
        >
          <Button className="button" isDisabled={readOnly}>
            Choose an archive…
          </Button>
        </FileTrigger>
        <p data-testid="chosen-file">{file ? file.name : 'No archive chosen.'}</p>
        <TextField
          className="field"
          value={passphrase}
          onChange={setPassphrase}
          type="password"
          isDisabled={readOnly}
        >
          <Label>Its backup passphrase (to open its secrets; optional)</Label>
          <Input autoComplete="off" />
        </TextField>
        <ErrorNote error={preview.error} />
        <Button type="submit" className="button primary" isDisabled={readOnly || !file || preview.isPending}>
          Preview the import
        </Button>
      </Form>
      {p ? <PreviewView preview={p} mapping={mapping} onMapping={setMapping} /> : null}
      {p && p.blockers.length === 0 && !imported ? (
        <div className="actions">
          <ConfirmDialog
            trigger="Import this configuration"
            title="Replace this box's configuration?"
            phrase={restorePhrase(p.archive.hostname)}
            confirmLabel="Import"
            danger
            isDisabled={readOnly}
            onConfirm={async (typed) => {
              const extra: Record<string, string> = { confirmation: typed };
              if (p.bareMetal) extra['diskMapping'] = JSON.stringify(mappingBody(p.bareMetal, mapping));
              setImported(await api.upload('/config/import', form(extra)));
            }}
          >
            <p>
              Shares, users, apps, backups and settings become those of {p.archive.hostname} (
              {p.archive.createdAt}). The configuration as it is now is kept as an archive first.
            </p>
          </ConfirmDialog>
        </div>
      ) : null}
      {imported ? (
        <div role="status" data-testid="imported">
          <p>
            Imported. The configuration before the import was kept in <code>{imported.preImportArchive}</code>
            .
          </p>
          {imported.notes.length > 0 ? (
            <ul>
              {imported.notes.map((n) => (
                <li key={n.code}>{n.message}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}

export function Configuration() {
  return (
    <Page title="Configuration">
      <div className="grid">
        <Export />
        <ImportPreview />
      </div>
    </Page>
  );
}
