import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatTime } from '../api.ts';
import { Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, Loading, Page } from '../ui.tsx';

type Slot = Awaited<ReturnType<typeof api.get<'/disks/array'>>>['disks'][number];
type State = NonNullable<Slot['removalState']> | 'none';

const STATES: ReadonlyArray<readonly [State, string]> = [
  ['none', 'in the array'],
  ['evacuating', 'evacuating (files being moved off)'],
  ['evacuated', 'evacuated (empty, still in the pool)'],
  ['unpooled', 'unpooled (out of the pool)'],
  ['unlisted', 'unlisted (out of the pool and parity)'],
];

function SlotRow({ slot }: { slot: Slot }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const current: State = slot.removalState ?? 'none';
  const [state, setState] = useState<State>(current);
  const [saved, setSaved] = useState(false);
  useEffect(() => setState(current), [current]);
  const save = useMutation({
    mutationFn: () =>
      api.put('/disks/array/removal-state', {
        body: { mountpoint: slot.mountpoint, removalState: state === 'none' ? null : state },
      }),
    onSuccess: () => {
      setSaved(true);
      void qc.invalidateQueries({ queryKey: ['array'] });
    },
  });
  return (
    <tr>
      <th scope="row">{slot.mountpoint}</th>
      <td>{slot.device ?? 'not attached'}</td>
      <td>
        <Choice
          label={`Removal state of ${slot.mountpoint}`}
          hideLabel
          value={state}
          options={STATES}
          onChange={(s) => {
            setSaved(false);
            save.reset();
            setState(s);
          }}
          isDisabled={readOnly}
        />
      </td>
      <td>
        <Button
          className="button small"
          isDisabled={readOnly || save.isPending || state === current}
          onPress={() => save.mutate()}
          aria-label={`Save the removal state of ${slot.mountpoint}`}
        >
          Save
        </Button>
        {saved ? <span role="status"> Saved.</span> : null}
        <ErrorNote error={save.error} />
      </td>
    </tr>
  );
}

function Migration() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const migration = useQuery({ queryKey: ['migration'], queryFn: () => api.get('/migration') });
  const set = useMutation({
    mutationFn: (pending: boolean) => api.post('/migration/pending', { body: { pending } }),
    onSuccess: (data) => {
      qc.setQueryData(['migration'], data);
      void qc.invalidateQueries({ queryKey: ['array'] });
    },
  });
  const d = migration.data;
  return (
    <Card title="Migration from another system" id="migration">
      <ErrorNote error={migration.error} />
      {!d ? <Loading what="the migration state" /> : null}
      {d ? (
        <>
          <p data-testid="migration-state">
            {d.pending
              ? `A migration is pending (since ${formatTime(d.since)}): shares cannot be created or changed, and no share's files can be deleted, until it is cleared.`
              : 'No migration is pending.'}
          </p>
          <p className="muted">
            The import from another system sets and clears this flag itself; this switch stands in for it.
          </p>
          <ErrorNote error={set.error} />
          <Button
            className="button"
            isDisabled={readOnly || set.isPending}
            onPress={() => set.mutate(!d.pending)}
          >
            {d.pending ? 'Clear the migration flag' : 'Mark a migration pending'}
          </Button>
        </>
      ) : null}
    </Card>
  );
}

export function DiskRemoval() {
  const array = useQuery({ queryKey: ['array'], queryFn: () => api.get('/disks/array') });
  const data = (array.data?.disks ?? []).filter((s) => s.role === 'data');
  return (
    <Page title="Disks leaving the array" actions={<Link to="/disks">Back to disks</Link>}>
      <div className="grid">
        <Card title="Removal state" id="removal">
          <p>
            A data disk leaves the array in steps: evacuating, evacuated, unpooled, unlisted. This version
            records the step only (the files are not moved for you); one disk at a time. A disk on its way out
            no longer receives the mover's files and cannot be upgraded.
          </p>
          <ErrorNote error={array.error} />
          {!array.data ? <Loading what="the array" /> : null}
          {array.data && !array.data.configured ? <p>There is no array yet.</p> : null}
          {data.length > 0 ? (
            <div className="table-wrap">
              <table className="table" data-testid="removal">
                <caption className="sr-only">Data disks and their removal state</caption>
                <thead>
                  <tr>
                    <th scope="col">Slot</th>
                    <th scope="col">Disk</th>
                    <th scope="col">State</th>
                    <th scope="col">
                      <span className="sr-only">Save</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((s) => (
                    <SlotRow key={s.id} slot={s} />
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </Card>
        <Migration />
      </div>
    </Page>
  );
}
