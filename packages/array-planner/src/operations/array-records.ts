/**
 * The array's own records as the API changes them (08 §9.3, §9.4, §10): the array set up under the
 * `array` hold and recorded in one transaction, a data disk's removal state, and the
 * migration-pending flag. Each decision runs inside ONE transaction of the `ArrayRecords` port (the
 * server's is SQLite: `array_disks`, `array_settings`, the audit row), so a refusal writes nothing.
 */
import { conflict, refuse } from '@appliance/common';
import type { ArraySetupPlan, ArraySetupRequest } from '../core/array-setup.ts';
import { checkNoArray } from '../core/array-setup.ts';
import { toAppError } from '../core/to-app-error.ts';
import type { ArraySlot, RemovalState } from '../core/types.ts';
import type { ArraySetupResult } from '../node/array-setup.ts';
import type { ArrayRecords, ArraySettings } from '../ports.ts';
import { type ArraySetupPorts, setupArray } from './setup-array.ts';
import { type ReadPorts, readArray, withMounted } from './read-array.ts';

/** What the array operations run on: the reads, the setup's ports, the records and the `array` hold. */
export type ArrayPorts<A> = ReadPorts &
  Omit<ArraySetupPorts, 'recordArray' | 'slots'> & {
    slots: ReadPorts['slots'] & ArraySetupPorts['slots'];
    records: ArrayRecords<A>;
    /** Holds the job groups for an operation that is not a job (the job runner's `hold`); returns the release. */
    hold(groups: readonly string[], what: { type: string; target: string }): () => void;
    clock: { now(): Date };
  };

const POOL = '/mnt/user';

/** `GET /disks/array` (08 §9.2): the slots with their disks now, or `configured: false`. */
export function showArray<A>(ports: Pick<ArrayPorts<A>, keyof ReadPorts | 'records'>) {
  return readArray(ports, ports.records.settings());
}

/** `POST /disks/array` (08 §9.3): the package's setup under the `array` hold; the rows recorded in one transaction. */
export async function createArray<A>(ports: ArrayPorts<A>, actor: A | null, request: ArraySetupRequest) {
  const exists = checkNoArray(ports.slots.listSlots());
  if (exists) throw toAppError(exists);
  const release = ports.hold(['array'], { type: 'array.create', target: POOL });
  try {
    await setupArray({ ...ports, recordArray: (setup) => recordArray(ports, actor, setup) }, request);
    return await showArray(ports);
  } finally {
    release();
  }
}

/** Records a set-up array: its rows, its settings and the audit row, in ONE transaction. */
export function recordArray<A>(
  ports: Pick<ArrayPorts<A>, 'records' | 'clock'>,
  actor: A | null,
  { plan, result }: { plan: ArraySetupPlan; result: ArraySetupResult },
): Promise<void> {
  return ports.records.transaction((tx) => {
    if (tx.slots().length > 0) throw conflict('array_exists', 'An array is already set up.');
    tx.insertArray(result.members, plan.createPolicy, ports.clock.now().toISOString());
    tx.audit(actor, {
      operation: 'array.create',
      target: POOL,
      details: {
        createPolicy: plan.createPolicy,
        disks: result.members.map((m) => ({
          device: m.device,
          role: m.role,
          mountpoint: m.mountpoint,
          filesystem: m.filesystem,
        })),
        poolMounted: result.poolMounted,
        mountUnits: result.mountUnits
          ? { units: result.mountUnits.units, enabled: result.mountUnits.enabled }
          : null,
      },
    });
  });
}

/** `PUT /disks/array/removal-state` (08 §9.4): records the state only (one data disk leaving at a time). */
export async function setRemovalState<A>(
  ports: Pick<ArrayPorts<A>, keyof ReadPorts | 'records'>,
  actor: A | null,
  body: { mountpoint: string; removalState: RemovalState | null },
) {
  const updated = await ports.records.transaction((tx): ArraySlot => {
    const slots = tx.slots();
    const row = slots.find((s) => s.mountpoint === body.mountpoint);
    if (!row)
      throw refuse('disk_slot_not_found', `no array disk at "${body.mountpoint}"`, {
        mountpoint: body.mountpoint,
      });
    if (row.role !== 'data') {
      throw conflict(
        'not_a_data_disk',
        `${body.mountpoint} is a ${row.role} disk; only data disks can leave the array this way.`,
        {
          mountpoint: body.mountpoint,
          role: row.role,
        },
      );
    }
    if (body.removalState !== null) {
      const other = slots.find((r) => r.id !== row.id && r.removalState !== null);
      if (other) {
        throw conflict(
          'removal_in_progress',
          `${other.mountpoint} is already leaving the array (${other.removalState}): finish or cancel that removal first.`,
          {
            mountpoint: other.mountpoint,
            removalState: other.removalState,
          },
        );
      }
    }
    tx.setRemovalState(row.id, body.removalState);
    tx.audit(actor, {
      operation: 'array.removal_state',
      target: body.mountpoint,
      details: { from: row.removalState, to: body.removalState },
    });
    return { ...row, removalState: body.removalState };
  });
  return (await withMounted(ports, [updated]))[0]!;
}

/** `GET /migration` (08 §10): whether a foreign-system migration is pending, and since when. */
export function readMigration(settings: ArraySettings | null) {
  return {
    pending: settings?.migrationPending === true,
    since: settings?.migrationPending === true ? settings.migrationPendingSince : null,
  };
}

/** `POST /migration/pending` (08 §10): `true` needs an array; the first `since` is kept while pending. */
export function setMigrationPending<A>(
  ports: Pick<ArrayPorts<A>, 'records' | 'clock'>,
  actor: A | null,
  pending: boolean,
) {
  return ports.records.transaction((tx) => {
    const s = tx.settings();
    if (!s) {
      if (pending)
        throw conflict('no_array', 'No array is set up yet: a migration can only be pending on an array.');
      return { pending: false, since: null };
    }
    const since = pending
      ? s.migrationPending
        ? s.migrationPendingSince
        : ports.clock.now().toISOString()
      : null;
    tx.setMigration(pending, since);
    tx.audit(actor, { operation: 'migration.pending', target: 'array', details: { pending } });
    return { pending, since };
  });
}
