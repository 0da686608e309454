/**
 * Data disk upgrade (issue 21) through the real server on a real array (loop disks in lab mode,
 * xfs, mergerfs pool, real snapraid and rsync): 1 GiB → 2 GiB with files on it. The pool serves
 * the slot's files during the copy (read one then; a new file goes to another disk) and in every
 * phase (a reader stats each of its files every 10 ms: not one failure, issue 32); the same
 * hashes, owners and modes after; the old loop disk still holds its files, untouched.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { DISK_JOB_PHASES } from '@appliance/array-planner';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabArray, eventually, type LabArray, waitJob } from '../../../test-support/lab-array.ts';
import { loop } from '../../../test-support/disks/lab.ts';
import {
  differences,
  type Entry,
  followEvents,
  snapshot,
  startStatReader,
  writeSpecials,
  writeTree,
} from '../../../test-support/disks/tree.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('upgrade a data disk 1 GiB → 2 GiB while the pool serves it', () => {
  let lab: LabArray;
  let bigger: LoopDisk;
  let events: Awaited<ReturnType<typeof followEvents>>;
  const pool = () => lab.real('/mnt/user');
  const conf = () => lab.s.server.ctx.paths.snapraidConf;

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 2048, dataSizeMiB: 1024 });
    bigger = await loop(lab.imageDir, 2 * GiB);
    events = await followEvents(lab.s.url, lab.s.token);
    await writeTree(pool(), 400, 1 * MiB); // ~200 MiB, spread over both disks
    await writeSpecials(lab.real('/mnt/disk1'));
    const r = await lab.s.call('POST', '/disks/array/parity/sync', {});
    expect((await waitJob(lab.s, r.body.id)).state).toBe('succeeded');
    // the copy runs at 20 MB/s here, so the test can use the pool while it runs (real rsync, limited)
    await fs.writeFile(
      path.join(lab.work, 'shims', 'rsync'),
      '#!/bin/sh\nexec /usr/bin/rsync --bwlimit=20000 "$@"\n',
      { mode: 0o755 },
    );
  }, 600_000);

  afterAll(async () => {
    events?.close();
    await lab?.destroy();
    await bigger?.destroy().catch(() => undefined);
  }, 120_000);

  it('copies, verifies and switches; the old disk is left unmounted and untouched', async () => {
    const before = await snapshot(lab.real('/mnt/disk1'), { withXattrs: true });
    const poolBefore = await snapshot(pool());
    const onDisk1 = [...before.entries()].filter(([, e]) => e.type === 'file' && (e.mode & 0o444) !== 0);
    expect(onDisk1.length).toBeGreaterThan(100);
    const [probe, probeEntry] = onDisk1[Math.floor(onDisk1.length / 2)] as [string, Entry];

    const plan = await lab.s.call('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/disk1',
      device: bigger.device,
    });
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.newMountpoint).toBeNull();
    const r = await lab.s.call('POST', '/disks/array/upgrade', {
      mountpoint: '/mnt/disk1',
      device: bigger.device,
      filesystem: plan.body.filesystem,
      confirmation: plan.body.confirmation,
    });
    expect(r.status, r.text).toBe(202);
    expect(r.body.type).toBe('disk_upgrade_data');
    const id = r.body.jobId as string;
    // a reader stats every file of disk 1 through the pool every 10 ms, across all the phases
    const reader = startStatReader(onDisk1.map(([rel]) => path.join(pool(), rel)));

    // during the copy: the job reports percent, bytes and ETA; the pool serves disk 1's files
    const copying = await eventually(async () => {
      const j = (await lab.s.call('GET', `/jobs/${id}`)).body;
      if (!['running', 'queued'].includes(j.state)) throw new Error(`job ended: ${JSON.stringify(j)}`);
      return j.phase === 'copy' && j.percent > 0 && j.bytesDone > 0 ? j : undefined;
    }, 300_000);
    expect(copying).toMatchObject({ cancellable: true, bytesTotal: expect.any(Number) });
    const read = createHash('sha256')
      .update(await fs.readFile(path.join(pool(), probe)))
      .digest('hex');
    expect(read).toBe(probeEntry.sha256);
    // a new file through the pool goes to the other disk (disk 1 is read-only until the switch)
    await fs.writeFile(path.join(pool(), 'written-during-copy.txt'), 'hello');
    expect(await fs.readFile(lab.real('/mnt/disk2/written-during-copy.txt'), 'utf8')).toBe('hello');
    expect((await lab.s.call('GET', `/jobs/${id}`)).body.phase).toBe('copy');
    // the switch cannot be cancelled, the copy can (not done here)
    const job = await waitJob(lab.s, id, 600_000);
    const reads = await reader.stop();
    expect([job.state, job.error], JSON.stringify(job)).toEqual(['succeeded', null]);
    // no read through the pool failed in any phase (issue 32: the switch used to leave a gap)
    expect(reads.failures).toEqual([]);
    expect(reads.rounds).toBeGreaterThan(100);
    expect(job.result).toMatchObject({
      kind: 'upgrade_data',
      mountpoint: '/mnt/disk1',
      device: bigger.device,
      previousDevice: lab.disks.data[0]!.device,
      verified: { errors: 0 },
    });
    expect(job.result.phases.map((x: { phase: string }) => x.phase)).toEqual(
      DISK_JOB_PHASES.upgrade_data.map((x) => x.name),
    );
    const seen = events.progress(id);
    expect([...new Set(seen.map((e) => e['phase']).filter(Boolean))]).toEqual(
      job.result.phases.map((x: { phase: string }) => x.phase),
    );
    expect(seen.some((e) => e['phase'] === 'copy' && typeof e['bytesDone'] === 'number')).toBe(true);

    // same hashes, owners, modes, times, links and xattrs on the new disk; the pool as before (plus the new file)
    expect(
      differences(before, await snapshot(lab.real('/mnt/disk1'), { withXattrs: true }), { dirModes: true }),
    ).toEqual([]);
    const poolAfter = await snapshot(pool());
    poolAfter.delete('written-during-copy.txt');
    expect(differences(poolBefore, poolAfter)).toEqual([]);
    const slot = (await lab.s.call('GET', '/disks/array')).body.disks.find(
      (d: { mountpoint: string }) => d.mountpoint === '/mnt/disk1',
    );
    expect(slot).toMatchObject({ device: bigger.device, sizeBytes: 2 * GiB, mounted: true });
    const df = await run('df', ['-B1', '--output=size', lab.real('/mnt/disk1')]);
    expect(Number(df.stdout.split('\n')[1])).toBeGreaterThan(1.5 * GiB);

    // the old disk: not mounted, its files as they were
    const old = lab.disks.data[0]!;
    expect(await fs.readFile('/proc/self/mountinfo', 'utf8')).not.toMatch(new RegExp(`${old.device} `));
    const at = path.join(lab.work, 'old-disk1');
    await fs.mkdir(at);
    await run('mount', ['-o', 'ro,norecovery', old.device, at]);
    try {
      expect(differences(before, await snapshot(at, { withXattrs: true }), { dirModes: true })).toEqual([]);
    } finally {
      await run('umount', [at]);
    }
    // the job's own files are gone: its configuration and the staging mountpoint
    expect(await fs.readdir(lab.real('/var/lib/appliance'))).not.toContain('disk-jobs');
    expect(await fs.readdir(lab.real('/mnt/.staging'))).toEqual([]);
    const check = await run('snapraid', ['-c', conf(), 'check'], { maxBuffer: 64 * MiB });
    expect(check.stdout).toContain('Everything OK');
  }, 900_000);
});
