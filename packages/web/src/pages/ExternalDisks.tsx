import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { api, formatBytes, formatTime } from '../api.ts';
import { Check, Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, Loading, Page } from '../ui.tsx';

type Disk = Awaited<ReturnType<typeof api.get<'/disks/external'>>>['disks'][number];
type Fs = 'xfs' | 'ext4' | 'btrfs' | 'exfat';

const useExternal = () =>
  useQuery({ queryKey: ['external-disks'], queryFn: () => api.get('/disks/external') });

function FormatDialog({ disk }: { disk: Disk }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [fs, setFs] = useState<Fs>('ext4');
  const phrase = `ERASE ${disk.device ?? ''}`;
  return (
    <ConfirmDialog
      trigger={`Format ${disk.label}…`}
      title={`Format ${disk.label} (${disk.device})`}
      phrase={phrase}
      confirmLabel="Erase and format"
      danger
      isDisabled={readOnly || !disk.attached || disk.mounted}
      onConfirm={async (typed) => {
        await api.post('/disks/external/{label}/format', {
          params: { label: disk.label },
          body: { confirmation: typed, filesystem: fs },
        });
        void qc.invalidateQueries({ queryKey: ['external-disks'] });
      }}
    >
      <p>
        Everything on {disk.device} ({formatBytes(disk.sizeBytes)}
        {disk.partitions.length > 0 ? `, ${disk.partitions.length} partitions` : ''}) is erased. It gets one
        filesystem labelled {disk.label}.
      </p>
      <Choice
        label="Filesystem"
        value={fs}
        options={[
          ['ext4', 'ext4'],
          ['xfs', 'xfs'],
          ['btrfs', 'btrfs'],
          ['exfat', 'exFAT (other computers)'],
        ]}
        onChange={setFs}
      />
    </ConfirmDialog>
  );
}

function Register({ candidates }: { candidates: string[] }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [device, setDevice] = useState(candidates[0] ?? '');
  const [label, setLabel] = useState('');
  const [backup, setBackup] = useState(false);
  const register = useMutation({
    mutationFn: () => api.post('/disks/external', { body: { device, label, backupDestination: backup } }),
    onSuccess: () => {
      setLabel('');
      void qc.invalidateQueries({ queryKey: ['external-disks'] });
    },
  });
  if (candidates.length === 0) return <p className="muted">No disk outside the array to register.</p>;
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        register.mutate();
      }}
    >
      <Choice
        label="Disk"
        value={device || candidates[0]!}
        options={candidates.map((d) => [d, d] as const)}
        onChange={setDevice}
        isDisabled={readOnly}
      />
      <TextField className="field" value={label} onChange={setLabel} isDisabled={readOnly}>
        <Label>Label</Label>
        <Input autoComplete="off" spellCheck={false} />
      </TextField>
      <Check value={backup} onChange={setBackup} isDisabled={readOnly}>
        Use as a backup destination
      </Check>
      <ErrorNote error={register.error} />
      <Button type="submit" className="button primary" isDisabled={readOnly || !label || register.isPending}>
        Register disk
      </Button>
    </Form>
  );
}

export function ExternalDisks() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const external = useExternal();
  const inventory = useQuery({ queryKey: ['disks'], queryFn: () => api.get('/disks') });
  const [note, setNote] = useState<string | null>(null);
  const mount = useMutation({
    mutationFn: async ({ label, eject }: { label: string; eject: boolean }): Promise<string | null> => {
      if (!eject) {
        await api.post('/disks/external/{label}/mount', { params: { label } });
        return null;
      }
      // the eject says whether the disk may be unplugged now
      return (await api.post('/disks/external/{label}/eject', { params: { label } })).note;
    },
    onSuccess: (n) => {
      setNote(n);
      void qc.invalidateQueries({ queryKey: ['external-disks'] });
    },
  });
  const registered = new Set((external.data?.disks ?? []).filter((d) => d.registered).map((d) => d.device));
  const candidates = (inventory.data?.disks ?? [])
    .filter((d) => !d.boot && !d.arrayMountpoint && !registered.has(d.device))
    .map((d) => d.device);
  return (
    <Page title="External disks">
      <div className="grid">
        <Card title="Disks" id="external">
          <ErrorNote error={external.error ?? mount.error} />
          {note ? <p role="status">{note}</p> : null}
          {!external.data ? <Loading what="the external disks" /> : null}
          {external.data && external.data.disks.length === 0 ? <p>No external disk.</p> : null}
          {external.data && external.data.disks.length > 0 ? (
            <div className="table-wrap">
              <table className="table" data-testid="external-disks">
                <caption className="sr-only">External disks</caption>
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Disk</th>
                    <th scope="col">Filesystem</th>
                    <th scope="col">State</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {external.data.disks.map((d) => (
                    <tr key={`${d.label}:${d.device}`}>
                      <th scope="row">{d.label}</th>
                      <td>
                        {d.device ?? 'not attached'} {formatBytes(d.sizeBytes)}
                        {d.backupDestination ? ' · backups' : ''}
                      </td>
                      <td>
                        {d.filesystem ?? 'none'}
                        {d.formattedAt ? ` (formatted ${formatTime(d.formattedAt)})` : ''}
                      </td>
                      <td>
                        {d.mounted
                          ? `mounted at ${d.mountpoint}`
                          : d.registered
                            ? 'not mounted'
                            : 'not registered'}
                      </td>
                      <td>
                        {d.registered ? (
                          <div className="actions">
                            <FormatDialog disk={d} />
                            <Button
                              className="button small"
                              isDisabled={readOnly || mount.isPending || !d.attached}
                              onPress={() => mount.mutate({ label: d.label, eject: d.mounted })}
                            >
                              {d.mounted ? `Eject ${d.label}` : `Mount ${d.label}`}
                            </Button>
                          </div>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </Card>
        <Card title="Register a disk" id="register">
          <ErrorNote error={inventory.error} />
          {inventory.data && external.data ? (
            <Register key={candidates.join()} candidates={candidates} />
          ) : null}
        </Card>
      </div>
    </Page>
  );
}
