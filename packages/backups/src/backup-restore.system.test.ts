/**
 * `@appliance/backups` without the server (issue 33 item 4): a share's folder backed up by the
 * `backup.run` job and restored by the `backup.restore` job into a new folder, both run by a
 * `JobRunner` of `@appliance/jobs` over in-memory stores, on the real restic, the repository on a
 * real xfs loop disk (`@appliance/lab`). Every restored file has the SHA-256 of its original. A
 * drill then proves the repository, and a missing disk is a refusal the job records.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type JobKind, JobRunner, type JobView } from '@appliance/jobs';
import { memoryPorts } from '@appliance/jobs/testing';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDrillHandler } from './jobs/drill.ts';
import { backupDrillJob, backupRestoreJob, backupRunJob } from './jobs/kinds.ts';
import { backupRestoreHandler } from './jobs/restore.ts';
import { backupRunHandler } from './jobs/run.ts';
import { type MemoryBackupPorts, memoryBackupPorts, memoryPlan } from './test-support/index.ts';

const run = promisify(execFile);

let root: string;
let disk: LoopDisk;
let ports: MemoryBackupPorts;
let jobs: ReturnType<typeof memoryPorts>;
let runner: JobRunner<string>;

/** SHA-256 of every file below `dir`, by relative path. */
async function digests(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const hash = createHash('sha256')
      .update(await fs.readFile(file))
      .digest('hex');
    out.set(path.relative(dir, file), hash);
  }
  return out;
}

/** Starts a job and lets the runner's manual clock hand it over; resolves when it ended. */
async function runJob<P, R>(kind: JobKind<P, R>, params: P): Promise<JobView<P, R>> {
  const { completed } = await runner.start(kind, params, { target: 'media', actor: 'alice' });
  await jobs.time.flush();
  return completed;
}

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['restic', 'mkfs.xfs', 'losetup', 'mount'] });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'backups-alone-'));
  const share = path.join(root, 'mnt/user/media');
  await fs.mkdir(path.join(share, 'photos/2024'), { recursive: true });
  for (let i = 0; i < 20; i++)
    await fs.writeFile(path.join(share, 'photos/2024', `p${i}.bin`), randomBytes(40_000 + i));
  await fs.writeFile(path.join(share, 'notes.txt'), 'hello\n');
  disk = await createLoopDisk({ sizeBytes: 320 * 1024 * 1024, filesystem: 'xfs' });
  const mountpoint = path.join(root, 'mnt/disks/backup');
  await fs.mkdir(mountpoint, { recursive: true });
  await run('mount', [disk.device, mountpoint]);

  ports = memoryBackupPorts({ root });
  ports.store.plans.set('nightly', memoryPlan('nightly', { destination: 'backup', shares: ['media'] }));
  ports.passwords.set('nightly', randomBytes(32).toString('base64url'));
  jobs = memoryPorts();
  runner = new JobRunner(jobs);
  runner.register(backupRunJob, backupRunHandler(ports));
  runner.register(backupRestoreJob, backupRestoreHandler(ports));
  runner.register(backupDrillJob, backupDrillHandler(ports));
}, 120_000);

afterAll(async () => {
  await disk?.destroy(); // unmounts and detaches
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('@appliance/backups alone', () => {
  let snapshot: string;

  it('backs up a share folder to a repository on the backup disk', async () => {
    const ended = await runJob(backupRunJob, { plan: 'nightly', destination: 'backup' });
    expect(ended.error).toBeNull();
    expect(ended.state).toBe('succeeded');
    const part = ended.result!.parts[0]!;
    expect(part).toMatchObject({ part: { kind: 'share', name: 'media' }, state: 'succeeded', files: 21 });
    snapshot = part.snapshot!;
    // restic's repository is on the mounted disk, where the plan's layout puts it
    await fs.access(path.join(root, 'mnt/disks/backup/appliance-backups/nightly/repository/config'));
    expect([...ports.store.snapshots.values()].map((s) => s.part)).toEqual(['share:media']);
    expect(ports.store.ends).toMatchObject([{ kind: 'run', plan: 'nightly', state: 'succeeded' }]);
  }, 300_000);

  it('restores the snapshot into a new folder: every file has its original SHA-256', async () => {
    const ended = await runJob(backupRestoreJob, {
      plan: 'nightly',
      destination: 'backup',
      snapshot,
      part: { kind: 'share', name: 'media' },
      paths: [],
      folder: '/mnt/user/media/restored',
    });
    expect(ended.error).toBeNull();
    expect(ended.result).toMatchObject({ target: '/mnt/user/media/restored', movedAside: [] });
    const original = await digests(path.join(root, 'mnt/user/media'));
    for (const k of [...original.keys()]) if (k.startsWith('restored/')) original.delete(k);
    const restored = await digests(path.join(root, 'mnt/user/media/restored'));
    expect(restored.size).toBe(21);
    expect(restored).toEqual(original);
  }, 300_000);

  it('a drill restores the latest snapshot with --verify and finds no difference', async () => {
    const ended = await runJob(backupDrillJob, { plan: 'nightly', destination: 'backup' });
    expect(ended.error).toBeNull();
    expect(ended.result).toMatchObject({ check: { subset: '1/10', error: null } });
    expect(ports.store.states.get('nightly')?.drillCount).toBe(1);
    expect(ports.raised).toEqual([]);
  }, 300_000);

  it('a missing backup disk fails the run with its refusal and raises the backup failure', async () => {
    ports.store.plans.set('elsewhere', memoryPlan('elsewhere', { destination: 'gone', shares: ['media'] }));
    ports.passwords.set('elsewhere', 'pw');
    const ended = await runJob(backupRunJob, { plan: 'elsewhere', destination: 'gone' });
    expect(ended.state).toBe('failed');
    expect(ended.error?.code).toBe('backup_destination_missing');
    expect(ports.raised.map((e) => e.eventType)).toEqual(['appdata_backup_failed']);
  }, 120_000);
});
