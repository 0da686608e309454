import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, FileTrigger, Form, Input, Label, TextField } from 'react-aria-components';
import { api } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, KeyValues, Page } from '../ui.tsx';

type Preview = Awaited<ReturnType<typeof api.upload<'/config/import/preview'>>>;

function Export() {
  const readOnly = useReadOnly();
  const [saved, setSaved] = useState<string | null>(null);
  const exp = useMutation({
    mutationFn: () => api.download('/config/export'),
    onSuccess: ({ blob, filename }) => {
      const name = filename ?? 'appliance-config.tar.zst';
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
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

function PreviewView({ preview }: { preview: Preview }) {
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
  const [file, setFile] = useState<File | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const preview = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.append('archive', file!);
      if (passphrase) form.append('passphrase', passphrase);
      return api.upload('/config/import/preview', form);
    },
  });
  return (
    <Card title="Import: preview" id="import">
      <p>What an archive would change here, before anything is imported.</p>
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
      {preview.data ? <PreviewView preview={preview.data} /> : null}
      <p className="muted">
        The import itself (with its typed phrase) runs from the command line for now:{' '}
        <code>appliance config import</code>.
      </p>
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
