/**
 * Parity that protects (issue 27), through the real server on a real array: three loop disks in
 * lab mode (parity + two data, xfs, mergerfs pool), real snapraid, events delivered to a real
 * webhook receiver. The scheduled sync is driven by moving the server's clock, never by sleeping.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { importBody } from '@appliance/archive-preview/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../../test-support/config-archive.ts';
import {
  createLabArray,
  eventually,
  type LabArray,
  processesWith,
  sha256File,
  waitJob,
  writeFiles,
} from '../../../test-support/lab-array.ts';
import { startEventReceiver } from '../../../test-support/event-receiver.ts';

const run = promisify(execFile);
const KiB = 1024;
const MiB = 1024 * KiB;

describe('parity sync and scrub on a real array', () => {
  let lab: LabArray;
  let hooks: Awaited<ReturnType<typeof startEventReceiver>>;
  let files: Map<string, string>;
  const pool = () => lab.real('/mnt/user');
  const parityFile = () => lab.real('/mnt/parity1/snapraid.parity');
  const conf = () => lab.s.server.ctx.paths.snapraidConf;
  const snapraid = (...args: string[]) =>
    run('snapraid', ['-c', conf(), ...args]).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );

  /**
   * Cancels the job `id()` when the snapraid sync (or scrub) the server runs (for real) prints a
   * stdout line matching `pattern`. snapraid is frozen (SIGSTOP) until the cancel has been accepted and
   * its SIGINT sent, so the point of the cancel is exact whatever the machine's speed. Returns the
   * undo and the cancel's answer.
   */
  const cancelAtSnapraidLine = (pattern: RegExp, id: () => string, tool: 'sync' | 'scrub' = 'sync') => {
    const runner = lab.runner;
    const original = runner.run;
    let answer: Promise<{ state: string }> | null = null;
    runner.run = (command, args, options) => {
      const onLine = options?.onLine;
      if (!onLine || !args.includes(tool)) return original.call(runner, command, args, options);
      let pid = 0;
      let matched = false;
      let later = false;
      // snapraid prints its progress by the wall clock: on a quick host it can finish the whole loop
      // before its first line reaches us. Run it at about a third of its speed (stopped 30 ms of
      // every 45) until the cancel point, so that its loop always prints lines we can stop it at.
      let slow: NodeJS.Timeout | undefined;
      let resume: NodeJS.Timeout | undefined;
      const signal = (sig: NodeJS.Signals) => {
        try {
          process.kill(pid, sig);
        } catch {
          // it has exited
        }
      };
      const fullSpeed = () => {
        clearInterval(slow);
        clearTimeout(resume);
        slow = undefined;
      };
      const result = original.call(runner, command, args, {
        ...options,
        onSpawn: (p) => {
          pid = p;
          options?.onSpawn?.(p);
          slow = setInterval(() => {
            signal('SIGSTOP');
            resume = setTimeout(() => signal('SIGCONT'), 30);
          }, 45);
        },
        onLine: (line, stream) => {
          onLine(line, stream);
          if (stream !== 'stdout') return;
          // a line read in one chunk with the loop's closing line was history when it was read
          // (the reader lagged): only a match that is the last progress of its chunk counts
          if (/^\s*\d+% completed/.test(line)) later = false;
          if (answer !== null || matched || !pattern.test(line)) return;
          matched = true;
          later = true;
          queueMicrotask(() => {
            matched = false;
            if (!later || answer !== null) return;
            fullSpeed();
            process.kill(pid, 'SIGSTOP');
            answer = lab.s.server.ctx.jobs.cancel(id(), null).finally(() => process.kill(pid, 'SIGCONT'));
          });
        },
      });
      return result.finally(() => {
        if (slow !== undefined) {
          fullSpeed();
          signal('SIGCONT');
        }
      });
    };
    return {
      restore: () => {
        runner.run = original;
      },
      answer: () => answer,
    };
  };

  const startSync = async (body: Record<string, unknown> = {}) => {
    const r = await lab.s.call('POST', '/disks/array/parity/sync', body);
    expect(r.status, r.text).toBe(202);
    expect(r.headers.get('location')).toBe(`/api/v1/jobs/${r.body.id}`);
    return r.body.id as string;
  };

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 1200, dataSizeMiB: 1024 });
    hooks = await startEventReceiver();
    const ch = await lab.s.call('POST', '/notifications/channels', {
      name: 'parity-hook',
      type: 'webhook',
      enabled: true,
      webhookUrl: hooks.url,
    });
    expect(ch.status).toBe(201);
    for (const e of [
      'sync_succeeded',
      'sync_failed',
      'sync_blocked_threshold',
      'scrub_errors_found',
      'array_degraded',
    ]) {
      const r = await lab.s.call('PUT', `/notifications/routing/${e}`, {
        severity: e === 'sync_succeeded' ? 'info' : 'critical',
        channelIds: [ch.body.id],
      });
      expect(r.status).toBe(200);
    }
    // 300 files of known SHA-256, written through the pool
    files = await writeFiles(pool(), 300, (i) => 4 * KiB + ((i * 7919) % 64) * KiB);
  }, 300_000);

  afterAll(async () => {
    await lab?.destroy();
    await hooks?.close();
  }, 120_000);

  it('a fresh array reads "never synced"; a GET runs no snapraid', async () => {
    const before = lab.runner.log.length;
    const r = await lab.s.call('GET', '/disks/array/parity');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ configured: true, parity: 'never_synced', lastSync: null, running: null });
    expect(r.body.next.sync).not.toBeNull();
    expect(lab.runner.log.slice(before).filter((c) => c.includes('snapraid'))).toEqual([]);
  });

  it('a sync on demand: the job succeeds, the parity file exists, snapraid has nothing to sync', async () => {
    const id = await startSync();
    const job = await waitJob(lab.s, id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ changes: { added: 300, removed: 0 }, forced: false });
    expect(job.result.bytes).toBeGreaterThan(4 * MiB);
    expect(job.percent).toBe(100);
    expect((await fs.stat(parityFile())).size).toBeGreaterThan(0);
    const done = await eventually(() => hooks.of('sync_succeeded')[0]);
    expect(done.message).toMatch(/^Parity is up to date: 300 files added, 0 removed/);
    expect((await snapraid('diff')).code).toBe(0); // 0: no differences
    expect((await snapraid('status')).out).toContain('No sync is in progress');
    const st = await lab.s.call('GET', '/disks/array/parity');
    expect(st.body).toMatchObject({ parity: 'in_sync', lastSync: { jobId: id, state: 'succeeded' } });
    expect(st.body.changes).toMatchObject({ added: 0, removed: 0 });
    expect(st.body.oldestScrubAt).not.toBeNull();
    // the files are all there, unchanged
    for (const [rel, sum] of [...files].slice(0, 20))
      expect(await sha256File(path.join(pool(), rel))).toBe(sum);
  }, 300_000);

  it('the guard: 60 deleted files block the sync on demand and the scheduled one; parity is kept; a forced sync runs', async () => {
    const parityBefore = await sha256File(parityFile());
    const removed = [...files.keys()].slice(0, 60);
    for (const rel of removed) await fs.rm(path.join(pool(), rel));

    const id = await startSync();
    const job = await waitJob(lab.s, id);
    expect(job.state).toBe('blocked');
    expect(job.error.code).toBe('sync_blocked_threshold');
    expect(job.result.crossed).toEqual([{ count: 'removed', value: 60, threshold: 50 }]);
    expect(job.result.removedPaths).toHaveLength(60);
    expect(await sha256File(parityFile())).toBe(parityBefore);
    const delivered = await eventually(() => hooks.of('sync_blocked_threshold')[0]);
    expect(delivered.message).toMatch(/60 removed files \(threshold 50\)/);
    const diff = await lab.s.call('GET', '/disks/array/parity/diff');
    const listed = diff.body.diff.paths.removed.map((p: string) => p.replace(/^d\d\//, ''));
    expect(listed.sort()).toEqual([...removed].sort());
    expect((await lab.s.call('GET', '/disks/array/parity')).body).toMatchObject({
      parity: 'changes_pending',
    });

    // the scheduled sync at the next 03:00 (the clock moves; nothing sleeps)
    const due = (await lab.s.call('GET', '/disks/array/parity')).body.next.sync as string;
    lab.clock.setTo(new Date(Date.parse(due) + 1000));
    await lab.s.server.ctx.scheduler.tick();
    const scheduled = await eventually(() =>
      lab.s.server.ctx.jobs.list({ limit: 5, type: 'parity.sync' }).find((j) => j.trigger === 'schedule'),
    );
    const sj = await waitJob(lab.s, scheduled.id);
    expect([sj.state, sj.trigger]).toEqual(['blocked', 'schedule']);
    expect(await sha256File(parityFile())).toBe(parityBefore);
    await eventually(() => (hooks.of('sync_blocked_threshold').length >= 2 ? true : undefined));
    // the slot ran once: another tick at the same time starts nothing
    await lab.s.server.ctx.scheduler.tick();
    expect(lab.s.server.ctx.jobs.running()).toEqual([]);

    const forced = await waitJob(lab.s, await startSync({ force: true }));
    expect(forced.state).toBe('succeeded');
    expect(forced.result).toMatchObject({ forced: true, reason: 'forced', changes: { removed: 60 } });
    expect((await snapraid('diff')).code).toBe(0);
    const audit = lab.s.server.ctx.sqlite
      .prepare("select details from audit_log where operation = 'job.parity.sync' order by id desc limit 1")
      .get() as { details: string };
    expect(JSON.parse(audit.details)).toMatchObject({ force: true, guard: 'skipped (force)' });
    for (const rel of removed) files.delete(rel);
  }, 300_000);

  it('a scrub of 100 % finds silent corruption and names the file', async () => {
    // a synced file on a data disk: flip bytes, keep its size and exact times
    const [rel] = [...files.keys()];
    const onDisk = await eventually(async () => {
      for (const d of ['/mnt/disk1', '/mnt/disk2']) {
        const p = path.join(lab.real(d), rel!);
        if (
          await fs.stat(p).then(
            () => true,
            () => false,
          )
        )
          return { disk: d, file: p };
      }
      return undefined;
    });
    const ref = path.join(lab.work, 'times-ref');
    await run('touch', ['-r', onDisk.file, ref]);
    const fh = await fs.open(onDisk.file, 'r+');
    await fh.write(Buffer.from('silent corruption'), 0, 17, 100);
    await fh.close();
    await run('touch', ['-r', ref, onDisk.file]);

    const r = await lab.s.call('POST', '/disks/array/parity/scrub', { percent: 100, olderThanDays: 0 });
    expect(r.status).toBe(202);
    const job = await waitJob(lab.s, r.body.id);
    expect(job.state).toBe('succeeded');
    expect(job.result.dataErrors).toBeGreaterThan(0);
    expect(job.result.files.map((f: { path: string }) => f.path)).toEqual([rel]);
    const hook = await eventually(() => hooks.of('scrub_errors_found')[0]);
    expect(hook.message).toContain(rel);
    const st = (await lab.s.call('GET', '/disks/array/parity')).body;
    expect(st.lastScrub).toMatchObject({ jobId: job.id, percent: 100, olderThanDays: 0 });
    // repair it from parity so the rest of the suite starts clean
    expect((await snapraid('-e', 'fix')).code).toBe(0);
    expect(await sha256File(onDisk.file)).toBe(files.get(rel!));
  }, 300_000);

  it('cancel: a running sync ends cancelled with the progress it had, snapraid exited cleanly, the next sync completes', async () => {
    // enough for a block loop of a few seconds: snapraid prints a progress line about every half second
    let big = await writeFiles(pool(), 20, () => 40 * MiB, 'big');
    let id = '';
    // cancelled inside snapraid's block loop, at its first progress line with work done
    let at = cancelAtSnapraidLine(/^\s*[1-9]\d?%, \d+ MB/, () => id);
    try {
      id = await startSync();
      let job = await waitJob(lab.s, id);
      // On a loaded host the output reader can lag so far that the loop's last progress line is read
      // together with its closing line: no cancel point was met and the sync simply succeeded. That
      // is no answer about a cancel; try again with the same files rewritten (new content, same names
      // and sizes, so the disks do not fill), twice at most, the assertions unchanged.
      for (let retry = 0; retry < 2 && (await at.answer()) === null && job.state === 'succeeded'; retry++) {
        at.restore();
        big = await writeFiles(pool(), 20, () => 40 * MiB, 'big');
        at = cancelAtSnapraidLine(/^\s*[1-9]\d?%, \d+ MB/, () => id);
        id = await startSync();
        job = await waitJob(lab.s, id);
      }
      expect((await at.answer())?.state).toBe('running');
      expect(job.state).toBe('cancelled');
      // where snapraid stopped, not 100 % (it closes an interrupted loop with "N% completed" too)
      expect(job.percent).toBeGreaterThan(0);
      expect(job.percent).toBeLessThan(100);
      expect(job.bytesDone).toBeLessThan(job.bytesTotal);
      expect(job.etaSeconds).toBeNull();
      expect((await snapraid('status')).out).toMatch(/You have a sync in progress at \d+%/);
      expect((await lab.s.call('GET', '/disks/array/parity')).body).toMatchObject({
        parity: 'changes_pending',
        lastSync: { jobId: id, state: 'cancelled' },
      });
    } finally {
      at.restore();
    }
    expect(await processesWith(conf())).toEqual([]);
    const again = await waitJob(lab.s, await startSync());
    expect(again.state).toBe('succeeded');
    expect((await snapraid('diff')).code).toBe(0);
    for (const [rel, sum] of big) files.set(rel, sum);
  }, 300_000);

  it('a cancel that arrives as snapraid finishes is too late: the sync succeeded and parity is in sync', async () => {
    const late = await writeFiles(pool(), 6, () => 16 * MiB, 'late-cancel');
    let id = '';
    // the cancel accepted (and SIGINT sent) while snapraid saves its state after "100% completed"
    const at = cancelAtSnapraidLine(/^\s*100% completed/, () => id);
    try {
      id = await startSync();
      const job = await waitJob(lab.s, id);
      expect((await at.answer())?.state).toBe('running');
      expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
      expect(job.error).toBeNull();
      expect(job.result).toMatchObject({ changes: { added: 6 } });
    } finally {
      at.restore();
    }
    expect((await snapraid('diff')).code).toBe(0);
    expect((await snapraid('status')).out).toContain('No sync is in progress');
    expect((await lab.s.call('GET', '/disks/array/parity')).body).toMatchObject({
      parity: 'in_sync',
      lastSync: { jobId: id, state: 'succeeded' },
    });
    for (const [rel, sum] of late) files.set(rel, sum);
  }, 300_000);

  it('a cancelled scrub keeps the progress it had; one cancelled after its loop completed succeeded', async () => {
    const scrub = async (pattern: RegExp) => {
      // a cancel point missed because the output reader lagged behind snapraid (the scrub simply
      // succeeded without a cancel, seen on a loaded host) is no answer: scrub again, twice at most
      for (let attempt = 1; ; attempt++) {
        let id = '';
        const at = cancelAtSnapraidLine(pattern, () => id, 'scrub');
        try {
          const r = await lab.s.call('POST', '/disks/array/parity/scrub', { percent: 100, olderThanDays: 0 });
          expect(r.status).toBe(202);
          id = r.body.id;
          const job = await waitJob(lab.s, id);
          const answer = await at.answer();
          if (answer === null && job.state === 'succeeded' && attempt < 3) continue;
          expect(answer?.state).toBe('running');
          return job;
        } finally {
          at.restore();
        }
      }
    };
    const stopped = await scrub(/^\s*[1-9]\d?%, \d+ MB/);
    expect(stopped.state).toBe('cancelled');
    expect(stopped.percent).toBeGreaterThan(0);
    expect(stopped.percent).toBeLessThan(100);
    expect(stopped.bytesDone).toBeLessThan(stopped.bytesTotal);
    const done = await scrub(/^\s*100% completed/);
    expect(done.state, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.result).toMatchObject({ dataErrors: 0, ioErrors: 0 });
    expect((await lab.s.call('GET', '/disks/array/parity')).body.lastScrub).toMatchObject({
      jobId: done.id,
      state: 'succeeded',
    });
  }, 300_000);

  it('one array job at a time: a second job, a share data delete and an import during a sync get 409', async () => {
    await lab.s.call('POST', '/shares', { name: 'media' });
    const archive = await rawRequest({ socket: lab.s.socket }, 'POST', '/config/export', Buffer.alloc(0));
    expect(archive.status).toBe(200);
    await writeFiles(pool(), 8, () => 40 * MiB, 'more');
    const id = await startSync();
    await eventually(async () =>
      (await lab.s.call('GET', `/jobs/${id}`)).body.phase === 'sync' ? true : undefined,
    );
    // everything but the running job's own row (its progress is saved every few seconds)
    const withoutJobs = () => {
      const d = JSON.parse(lab.s.dumpDatabase()) as Record<string, unknown>;
      delete d['jobs'];
      return d;
    };
    const dump = withoutJobs();

    const second = await lab.s.call('POST', '/disks/array/parity/scrub', {});
    expect([second.status, second.body.code, second.body.details?.jobId], second.text).toEqual([
      409,
      'job_running',
      id,
    ]);
    expect(second.body.message).toMatch(/parity sync is running/i);
    const again = await lab.s.call('POST', '/disks/array/parity/sync', {});
    expect([again.status, again.body.code], again.text).toEqual([409, 'job_running']);
    const del = await lab.s.call('POST', '/shares/media/data/delete', { confirmation: 'media' });
    expect([del.status, del.body.code, del.body.details?.jobId], del.text).toEqual([409, 'job_running', id]);
    const hostname = (await lab.s.call('GET', '/settings')).body.hostname as string;
    const b = importBody(archive.body, { confirmation: `RESTORE ${hostname}` });
    const imp = await rawRequest({ socket: lab.s.socket }, 'POST', '/config/import', b.body, {
      'content-type': b.contentType,
    });
    expect([imp.status, imp.json().code, imp.json().details?.jobId], imp.body.toString()).toEqual([
      409,
      'job_running',
      id,
    ]);
    expect(withoutJobs()).toEqual(dump);
    const ended = await waitJob(lab.s, id);
    expect(ended.state, JSON.stringify(ended.error)).toBe('succeeded');
  }, 300_000);

  it('a sync snapraid cannot complete fails, says why, and raises sync_failed; the next one succeeds', async () => {
    await writeFiles(pool(), 3, () => 64 * KiB, 'late');
    await run('chattr', ['+i', parityFile()]); // the parity file cannot be opened for writing
    try {
      const job = await waitJob(lab.s, await startSync());
      expect(job.state).toBe('failed');
      expect(job.error.message).toMatch(/parity/i);
      const hook = await eventually(() => hooks.of('sync_failed')[0]);
      expect(hook.message).toMatch(/^The requested parity sync failed: .+\. Parity still protects/);
    } finally {
      await run('chattr', ['-i', parityFile()]);
    }
    const again = await waitJob(lab.s, await startSync());
    expect(again.state, JSON.stringify(again.error)).toBe('succeeded');
  }, 300_000);

  it('a missing data disk when a sync starts: the job fails clearly and array_degraded is raised', async () => {
    const failedBefore = hooks.of('sync_failed').length;
    const disk2 = lab.disks.data[1]!;
    await run('umount', [pool()]).catch(() => run('umount', ['-l', pool()]));
    await run('umount', [lab.real('/mnt/disk2')]).catch(() => run('umount', ['-l', lab.real('/mnt/disk2')]));
    await run('losetup', ['-d', disk2.device]);
    const job = await waitJob(lab.s, await startSync());
    expect(job.state).toBe('failed');
    expect(job.error.code).toBe('array_degraded');
    expect(job.error.message).toContain('/mnt/disk2');
    expect(job.error.details.missing).toEqual([
      { role: 'data', mountpoint: '/mnt/disk2', device: disk2.device },
    ]);
    const hook = await eventually(() => hooks.of('array_degraded')[0]);
    expect(hook.message).toContain('/mnt/disk2');
    expect(hooks.of('sync_failed')).toHaveLength(failedBefore); // degraded, not a failed sync
  }, 120_000);
});
