import { describe, expect, it } from 'vitest';
import type { BranchReport } from './model.ts';
import {
  FailureList,
  MAX_LISTED_FAILURES,
  auditOutcome,
  branchStatus,
  buildReport,
  incompleteError,
} from './report.ts';

const branch = (disk: string, files: number, dirs: number, bytes: number, present = true): BranchReport => ({
  disk,
  path: `${disk}/media`,
  present,
  filesDeleted: files,
  dirsDeleted: dirs,
  bytesFreed: bytes,
  status: present ? 'ok' : 'absent',
  failureCount: 0,
});

describe('report (05 §3)', () => {
  it('totals are the sums over the branches', () => {
    const report = buildReport(
      'media',
      false,
      [
        branch('/mnt/cache', 0, 0, 0, false),
        branch('/mnt/disk1', 1200, 31, 5368709120),
        branch('/mnt/disk2', 3, 1, 4096),
      ],
      [],
    );
    expect(report.totals).toEqual({ filesDeleted: 1203, dirsDeleted: 32, bytesFreed: 5368713216 });
    expect(report.branches.map((b) => b.disk)).toEqual(['/mnt/cache', '/mnt/disk1', '/mnt/disk2']);
  });

  it('branch status', () => {
    expect(branchStatus(false, 0, null)).toBe('absent');
    expect(branchStatus(true, 0, null)).toBe('ok');
    expect(branchStatus(true, 2, null)).toBe('incomplete');
    expect(branchStatus(true, 1, 'read_only')).toBe('read_only');
    expect(branchStatus(true, 1, 'disk_error')).toBe('disk_error');
  });

  it('keeps the first 100 failures and counts them all', () => {
    const list = new FailureList();
    for (let i = 0; i < 150; i++)
      list.add({ disk: '/mnt/disk1', path: `/mnt/disk1/media/f${i}`, error: 'EPERM' });
    list.addBatch([{ disk: '/mnt/disk2', path: '/mnt/disk2/media/x', error: 'EIO' }], 7);
    expect(list.listed).toHaveLength(MAX_LISTED_FAILURES);
    expect(list.listed[0]!.path).toBe('/mnt/disk1/media/f0');
    expect(list.count).toBe(157);
  });

  it('no failure → no error and audit ok; failures → 500 share_data_delete_incomplete and audit partial', () => {
    const report = buildReport('media', false, [branch('/mnt/disk1', 1, 0, 0)], []);
    const clean = { report, failures: [], failureCount: 0 };
    expect(incompleteError(clean)).toBeNull();
    expect(auditOutcome(clean)).toBe('ok');
    const failures = [{ disk: '/mnt/disk1', path: '/mnt/disk1/media/locked', error: 'EPERM' }];
    const partial = { report, failures, failureCount: 1 };
    const err = incompleteError(partial)!;
    expect([err.status, err.code]).toEqual([500, 'share_data_delete_incomplete']);
    expect(err.details).toEqual({ report, failures, failureCount: 1 });
    expect(err.message).toMatch(/run the delete again/);
    expect(auditOutcome(partial)).toBe('partial');
  });
});
