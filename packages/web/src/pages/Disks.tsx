import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Button as RacButton,
  Select,
  SelectValue,
} from 'react-aria-components';
import { Link, useParams } from 'react-router';
import { ApiError, api, formatBytes, formatTime } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, KeyValues, Loading, Page, StateBadge } from '../ui.tsx';
import { useArray } from './Dashboard.tsx';

type Role = 'none' | 'parity' | 'data' | 'cache';
const kernelName = (device: string) => device.replace(/^\/dev\//, '');

export const useDisks = () => useQuery({ queryKey: ['disks'], queryFn: () => api.get('/disks') });

function RoleSelect({
  device,
  value,
  onChange,
  isDisabled,
}: {
  device: string;
  value: Role;
  onChange: (r: Role) => void;
  isDisabled: boolean;
}) {
  return (
    <Select
      className="select"
      selectedKey={value}
      onSelectionChange={(k) => onChange(k as Role)}
      isDisabled={isDisabled}
      aria-label={`Role of ${device}`}
    >
      <Label className="sr-only">Role of {device}</Label>
      <RacButton className="button small">
        <SelectValue />
        <span aria-hidden="true"> ▾</span>
      </RacButton>
      <Popover className="popover">
        <ListBox className="listbox">
          <ListBoxItem id="none" className="option">
            not in the array
          </ListBoxItem>
          <ListBoxItem id="parity" className="option">
            parity
          </ListBoxItem>
          <ListBoxItem id="data" className="option">
            data
          </ListBoxItem>
          <ListBoxItem id="cache" className="option">
            cache
          </ListBoxItem>
        </ListBox>
      </Popover>
    </Select>
  );
}

export function Disks() {
  const disks = useDisks();
  const array = useArray();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [roles, setRoles] = useState<Record<string, Role>>({});
  const [phrase, setPhrase] = useState<string | null>(null);
  const [planError, setPlanError] = useState<unknown>(null);
  const configured = array.data?.configured ?? false;
  const chosen = Object.entries(roles)
    .filter(([, r]) => r !== 'none')
    .map(([device, role]) => ({ device, role: role as Exclude<Role, 'none'> }));
  const choose = (device: string, role: Role) => {
    setRoles((r) => ({ ...r, [device]: role }));
    setPhrase(null);
    setPlanError(null);
  };
  // The API names the phrase: the first attempt without one answers 409 with details.expected.
  const askPhrase = async () => {
    setPlanError(null);
    try {
      await api.post('/disks/array', { body: { disks: chosen } });
    } catch (err) {
      if (
        err instanceof ApiError &&
        err.code === 'confirmation_required' &&
        typeof err.details?.['expected'] === 'string'
      ) {
        setPhrase(err.details['expected']);
        return;
      }
      setPlanError(err);
    }
  };
  return (
    <Page title="Disks">
      <Card title="Inventory" id="inventory">
        <ErrorNote error={disks.error} />
        {!disks.data ? <Loading what="the disks" /> : null}
        {disks.data ? (
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Disks of this machine</caption>
              <thead>
                <tr>
                  <th scope="col">Disk</th>
                  <th scope="col">Size</th>
                  <th scope="col">Model</th>
                  <th scope="col">Filesystem</th>
                  <th scope="col">Slot</th>
                  <th scope="col">SMART</th>
                  {!configured ? <th scope="col">Array role</th> : null}
                </tr>
              </thead>
              <tbody>
                {disks.data.disks.map((d) => (
                  <tr key={d.device}>
                    <td>
                      {d.device}
                      {d.boot ? <span className="muted"> (boot)</span> : null}
                    </td>
                    <td>{formatBytes(d.sizeBytes)}</td>
                    <td>{d.model ?? '—'}</td>
                    <td>{d.filesystem ?? d.partitions[0]?.filesystem ?? '—'}</td>
                    <td>{d.arrayMountpoint ?? d.externalLabel ?? '—'}</td>
                    <td>
                      <Link
                        to={`/disks/${kernelName(d.device)}/smart`}
                        aria-label={`SMART details of ${d.device}`}
                      >
                        details
                      </Link>
                    </td>
                    {!configured ? (
                      <td>
                        <RoleSelect
                          device={d.device}
                          value={roles[d.device] ?? 'none'}
                          onChange={(r) => choose(d.device, r)}
                          isDisabled={readOnly || d.boot || d.inUse}
                        />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
      {array.data && !configured ? (
        <Card title="Set up the array" id="setup">
          <p>
            Choose one parity disk (at least as large as the largest data disk) and one or more data disks
            above. Every chosen disk is erased and formatted.
          </p>
          <p>
            Chosen: {chosen.length === 0 ? 'none' : chosen.map((c) => `${c.device} (${c.role})`).join(', ')}
          </p>
          <ErrorNote error={planError} />
          {phrase === null ? (
            <RacButton
              className="button primary"
              isDisabled={readOnly || chosen.length === 0}
              onPress={askPhrase}
            >
              Review setup
            </RacButton>
          ) : (
            <ConfirmDialog
              trigger="Erase and set up"
              title="Erase these disks and set up the array"
              phrase={phrase}
              confirmLabel="Erase and set up"
              danger
              isDisabled={readOnly}
              onConfirm={async (typed) => {
                await api.post('/disks/array', { body: { disks: chosen, confirmation: typed } });
                setRoles({});
                setPhrase(null);
                await qc.invalidateQueries();
              }}
            >
              <p>Everything on {chosen.map((c) => c.device).join(', ')} will be erased.</p>
            </ConfirmDialog>
          )}
        </Card>
      ) : null}
      {array.data && configured ? (
        <Card title="Array slots" id="slots">
          <ul className="slots">
            {array.data.disks.map((d) => (
              <li key={d.id}>
                <strong>{d.mountpoint}</strong> {d.role} · {d.device} · {d.filesystem} ·{' '}
                {d.mounted ? 'online' : <span className="bad">offline</span>}
              </li>
            ))}
          </ul>
          <p>
            <Link to="/disks/replace">Replace a failed disk</Link> ·{' '}
            <Link to="/disks/upgrade">Upgrade a disk</Link> ·{' '}
            <Link to="/disks/removal">Disks leaving the array</Link>
          </p>
        </Card>
      ) : null}
    </Page>
  );
}

export function SmartDetails() {
  const { id = '' } = useParams();
  const smart = useQuery({
    queryKey: ['smart', id],
    queryFn: () => api.get('/disks/{id}/smart', { params: { id }, query: { limit: '20' } }),
  });
  const last = smart.data?.last;
  return (
    <Page title={`SMART: ${id}`} actions={<Link to="/disks">Back to disks</Link>}>
      <ErrorNote error={smart.error} />
      {smart.isLoading ? <Loading what="SMART" /> : null}
      {smart.data ? (
        <Card title="Last reading" id="smart-last">
          {last ? (
            <>
              <KeyValues
                rows={[
                  ['Model', smart.data.model ?? '—'],
                  ['Serial', smart.data.serial ?? '—'],
                  ['Slot', smart.data.slot ?? '—'],
                  ['Read at', formatTime(last.at)],
                  ['State', <StateBadge key="s" state={last.state} />],
                  ['Overall', last.passed === null ? '—' : last.passed ? 'passed' : 'FAILED'],
                  ['Temperature', last.temperatureC === null ? '—' : `${last.temperatureC} °C`],
                  ['Power-on hours', last.powerOnHours ?? '—'],
                ]}
              />
              {last.detail ? <p>{last.detail}</p> : null}
              {last.findings.length > 0 ? (
                <ul>
                  {last.findings.map((f) => (
                    <li key={f.id} className="bad">
                      {f.message}
                    </li>
                  ))}
                </ul>
              ) : (
                <p>No findings.</p>
              )}
            </>
          ) : (
            <p>No SMART reading yet (the SMART watcher has not read this disk).</p>
          )}
        </Card>
      ) : null}
    </Page>
  );
}
