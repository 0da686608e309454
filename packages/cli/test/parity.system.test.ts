/**
 * The parity commands as an operator types them, on a real array (loop disks, lab mode, real
 * snapraid): status, a sync with its progress lines, the guard blocking (exit 1), a forced sync, a
 * scrub naming a corrupted file, and the jobs commands (list, show, cancel), each --json equal to
 * the API's answer.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLabArray, type LabArray, waitJob, writeFiles } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance } from './support.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

let lab: LabArray;
let files: Map<string, string>;
const cli = (args: string[]) => appliance([...args, '--socket', lab.s.socket], { timeoutMs: 300_000 });
const api = async (p: string) => (await lab.s.call('GET', p, undefined, { via: 'unix' })).body;

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 1024, dataSizeMiB: 768 });
  files = await writeFiles(lab.real('/mnt/user'), 120, (i) => 8192 + i * 512);
}, 300_000);

afterAll(async () => {
  await lab?.destroy();
}, 120_000);

describe('appliance array parity|sync|scrub and appliance jobs', () => {
  it('array parity: never synced, as a table; --json is the API answer', async () => {
    const r = await cli(['array', 'parity']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/parity:\s+NEVER SYNCED/);
    expect(r.stdout).toMatch(/next sync:\s+in /);
    const j = await cli(['array', 'parity', '--json']);
    expect(JSON.parse(j.stdout)).toEqual(await api('/disks/array/parity'));
  });

  it('array sync: progress lines on stderr, then in sync', async () => {
    const r = await cli(['array', 'sync']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Parity is in sync \(.+ processed\)\.$/m);
    expect(r.stderr).toMatch(/parity\.sync \/mnt\/user: .*succeeded/);
    expect((await cli(['array', 'parity'])).stdout).toMatch(/parity:\s+in sync/);
  }, 300_000);

  it('the guard blocks a sync after 60 deletions (exit 1), a forced one runs', async () => {
    for (const rel of [...files.keys()].slice(0, 60)) await fs.rm(path.join(lab.real('/mnt/user'), rel));
    const blocked = await cli(['array', 'sync']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/sync_blocked_threshold: .*60 removed files \(threshold 50\)/);
    // stdout: the first 20 removed paths and what to do, not the whole job
    expect(blocked.stdout).toMatch(/^Removed since the last sync \(first 20 of 60\):\n/);
    expect(blocked.stdout.split('\n').filter((l) => /^ {2}d[12]\//.test(l))).toHaveLength(20);
    expect(blocked.stdout).toMatch(/appliance array sync --force\n$/);
    expect((await cli(['array', 'parity'])).stdout).toMatch(/blocked since:\s+/);
    const forced = await cli(['array', 'sync', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
  }, 300_000);

  it('array scrub names a silently corrupted file (exit 1)', async () => {
    const rel = [...files.keys()][100]!;
    let file = '';
    for (const d of ['/mnt/disk1', '/mnt/disk2']) {
      const p = path.join(lab.real(d), rel);
      if (
        await fs.stat(p).then(
          () => true,
          () => false,
        )
      )
        file = p;
    }
    const ref = path.join(lab.work, 'ref');
    await run('touch', ['-r', file, ref]);
    const fh = await fs.open(file, 'r+');
    await fh.write(Buffer.from('bitrot'), 0, 6, 10);
    await fh.close();
    await run('touch', ['-r', ref, file]);
    const r = await cli(['array', 'scrub', '--percent', '100', '--older-than', '0']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(rel);
    expect(r.stdout).toMatch(/^Scrub found 1 error in:\n/);
    expect(r.stderr).toMatch(/scrub_errors_found: The scrub found 1 error \(see above\)/);
    const usage = await cli(['array', 'scrub', '--percent', '101']);
    expect([usage.code, usage.stderr]).toEqual([
      2,
      expect.stringMatching(/--percent takes a whole number from 1 to 100/),
    ]);
  }, 300_000);

  it('jobs list, show and cancel', async () => {
    await writeFiles(lab.real('/mnt/user'), 10, () => 40 * MiB, 'big');
    const started = await cli(['array', 'sync', '--no-wait', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = JSON.parse(started.stdout).id as string;
    const list = await cli(['jobs', 'list']);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toMatch(/parity\.scrub/);
    // cancel once the sync phase (cancellable) is reached
    for (let i = 0; i < 600; i++) {
      if ((await api(`/jobs/${id}`)).cancellable) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const c = await cli(['jobs', 'cancel', id]);
    expect(c.code, `${c.stderr} ${JSON.stringify(await api(`/jobs/${id}`))}`).toBe(0);
    expect((await waitJob(lab.s, id)).state).toBe('cancelled');
    const show = await cli(['jobs', 'show', id]);
    expect(show.stdout).toMatch(/state:\s+cancelled/);
    expect(JSON.parse((await cli(['jobs', 'show', id, '--json'])).stdout)).toEqual(await api(`/jobs/${id}`));
    const gone = await cli(['jobs', 'cancel', id]);
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringMatching(/^job_not_running: /m)]);
  }, 300_000);
});
