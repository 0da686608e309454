/**
 * The store rules over plain in-memory rows: unique labels ignoring case and unique filesystem
 * UUIDs, re-checked inside the write (a refusal writes nothing), one audit row per registration and
 * per format attempt (none at its start), and a fresh UUID taken from a stale row.
 */
import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { memoryExternalDiskRows } from '../test-support/memory-rows.ts';
import { externalDiskStore } from './store-rules.ts';

const cols = (over: Record<string, unknown> = {}) => ({
  device: '/dev/sdx',
  filesystem: 'xfs',
  fsUuid: 'uuid-1',
  wwn: null,
  serial: 'S1',
  byIdName: null,
  weakIdentity: false,
  sizeBytes: 1000,
  ...over,
});
const registration = (label: string, over: Record<string, unknown> = {}) => ({
  ...cols(over),
  label,
  backupDestination: true,
});
const AT = '2026-01-01T00:00:00.000Z';
const codeOf = (err: unknown) => (err instanceof AppError ? err.code : String(err));

describe('externalDiskStore', () => {
  it('registers a disk with its audit row', async () => {
    const rows = memoryExternalDiskRows();
    const row = await externalDiskStore(rows).insertRegistration(registration('Backup'), AT);
    expect(row).toMatchObject({
      id: 1,
      label: 'Backup',
      backupDestination: true,
      createdAt: AT,
      formattedAt: null,
    });
    expect(rows.audit).toEqual([
      {
        operation: 'disks.external.register',
        target: 'Backup',
        details: { device: '/dev/sdx', backupDestination: true },
      },
    ]);
  });

  it('a label taken in any case, or a filesystem UUID registered, is refused and writes nothing', async () => {
    const rows = memoryExternalDiskRows();
    const store = externalDiskStore(rows);
    await store.insertRegistration(registration('Backup'), AT);
    const byLabel = await store
      .insertRegistration(registration('BACKUP', { fsUuid: 'other' }), AT)
      .catch((e) => e);
    expect([codeOf(byLabel), (byLabel as AppError).message]).toEqual([
      'external_disk_exists',
      expect.stringContaining('The label "Backup" is already registered'),
    ]);
    const byUuid = await store.insertRegistration(registration('second'), AT).catch((e) => e);
    expect([codeOf(byUuid), (byUuid as AppError).details]).toEqual([
      'external_disk_exists',
      { label: 'Backup' },
    ]);
    expect(rows.rows).toHaveLength(1);
    expect(rows.audit).toHaveLength(1);
  });

  it('a format start stores the row without filesystem and UUID, and no audit row', async () => {
    const rows = memoryExternalDiskRows();
    const store = externalDiskStore(rows);
    const id = await store.recordFormatStart({
      rowId: null,
      label: 'usb',
      columns: {
        device: '/dev/sdy',
        wwn: null,
        serial: 'S2',
        byIdName: null,
        weakIdentity: true,
        sizeBytes: 5,
      },
      at: AT,
    });
    expect(rows.rows).toEqual([
      expect.objectContaining({ id, label: 'usb', filesystem: null, fsUuid: null }),
    ]);
    expect(rows.audit).toEqual([]);
  });

  it('a format record takes its fresh UUID from a stale row, keeps formattedAt, audits the outcome', async () => {
    const rows = memoryExternalDiskRows();
    const store = externalDiskStore(rows);
    await store.insertRegistration(registration('old', { fsUuid: 'fresh' }), AT);
    const target = await store.insertRegistration(registration('usb', { fsUuid: null, serial: 'S2' }), AT);
    const stored = await store.recordFormat({
      rowId: target.id,
      label: 'usb',
      columns: cols({ fsUuid: 'fresh', serial: 'S2' }) as never,
      formattedAt: '2026-01-02T00:00:00.000Z',
      audit: { at: AT, outcome: 'ok', details: { device: '/dev/sdx', filesystem: 'xfs' } },
    });
    expect(stored).toMatchObject({ id: target.id, fsUuid: 'fresh', formattedAt: '2026-01-02T00:00:00.000Z' });
    expect(rows.rows.find((r) => r.label === 'old')?.fsUuid).toBeNull();
    expect(rows.audit.at(-1)).toEqual({
      operation: 'disks.external.format',
      target: 'usb',
      outcome: 'ok',
      details: { device: '/dev/sdx', filesystem: 'xfs' },
    });
  });

  it('a row that vanished during the format is an internal error, and nothing is written', async () => {
    const rows = memoryExternalDiskRows();
    const err = await externalDiskStore(rows)
      .recordFormat({
        rowId: 42,
        label: 'usb',
        columns: cols() as never,
        formattedAt: null,
        audit: { at: AT, outcome: 'failed', details: { device: '/dev/sdx', filesystem: 'xfs' } },
      })
      .catch((e) => e);
    expect([(err as AppError).status, codeOf(err)]).toEqual([500, 'internal']);
    expect([rows.rows, rows.audit]).toEqual([[], []]);
  });
});
