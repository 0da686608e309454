/**
 * The disk jobs (issue 21) against the same work done by hand, same disks, same run: a lab array
 * (xfs loop disks in lab mode: parity 3 GiB, disk1 3 GiB holding --data-mib in --files files,
 * disk2 1 GiB) with two free 3 GiB disks; the page cache dropped before every timed run.
 *
 * 1. Data upgrade. Service: `POST /disks/array/upgrade` of /mnt/disk1 onto a free disk, timed to
 *    the job's end (check, presync, freeze, format, copy, verify, switch, sync — everything).
 *    By hand, onto another free disk (formatted and mounted outside the timer): `rsync -aHAX`,
 *    then against a configuration naming the copy `snapraid check -d d1` (the issue's reference:
 *    hashes and parity) and, timed apart, `snapraid check -a -d d1` (the job's own verify: the
 *    hashes only, a copy does not touch parity), each from a cold cache. Target: service ≤ 1.2 ×
 *    (rsync + check -d) by hand (medians); the ratio to (rsync + check -a -d), the same work as
 *    the job's copy and verify, is printed too.
 * 2. Rebuild. disk1 destroyed (unmounted, signature wiped). Service: `POST /disks/array/replace`;
 *    its `rebuild` phase (the `snapraid fix -d d1` the job runs, with its log parsed and progress
 *    published) timed by the job, the whole job printed too. By hand: the same `snapraid fix -d
 *    d1` on a freshly formatted disk mounted at /mnt/disk1. Target: rebuild ≤ 1.05 × by hand.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createLabArray, type LabArray, waitJob, writeFiles } from '@appliance/api-server/testing';
import { createLoopDisk, type LoopDisk } from '@appliance/lab';

const run = promisify(execFile);
const MiB = 1024 ** 2;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'data-mib': { type: 'string', default: '1024' },
    files: { type: 'string', default: '10000' },
  },
});
const RUNS = Number(values.runs);
const DATA_MIB = Number(values['data-mib']);
const FILES = Number(values.files);
const UPGRADE_TARGET = 1.2;
const REBUILD_TARGET = 1.05;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] as number)
    : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const secs = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
const dropCaches = async () => {
  await run('sync');
  await fs.writeFile('/proc/sys/vm/drop_caches', '3');
};
const timed = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

let lab: LabArray | null = null;
const spares: LoopDisk[] = [];
try {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 3072, dataSizeMiB: 3072 });
  const l = lab;
  const disk1 = l.disks.data[0]!;
  for (let i = 0; i < 2; i++)
    spares.push(await createLoopDisk({ sizeBytes: 3072 * MiB, imageDir: l.imageDir }));
  const conf = l.s.server.ctx.paths.snapraidConf;
  await writeFiles(l.real('/mnt/disk1'), FILES, () => Math.floor((DATA_MIB * MiB) / FILES), 'bench');
  await writeFiles(l.real('/mnt/disk2'), 50, () => 64 * 1024, 'other');
  const api = async (method: string, p: string, body?: unknown) => {
    const r = await l.s.call(method, p, body, { via: 'unix' });
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
    return r.body;
  };
  const job = async (p: string, body: unknown) => {
    const { jobId, id } = await api('POST', p, body);
    const j = await waitJob(l.s, jobId ?? id, 3_600_000);
    if (j.state !== 'succeeded') throw new Error(`${p}: ${j.state} ${JSON.stringify(j.error)}`);
    return j;
  };
  await job('/disks/array/parity/sync', {});

  const all = [disk1, ...spares];
  const slotDevice = async () =>
    (await api('GET', '/disks/array')).disks.find(
      (d: { mountpoint: string }) => d.mountpoint === '/mnt/disk1',
    ).device as string;
  /** The loop disks not holding the slot (the first one for the service, the other for the hand). */
  const free = async () => {
    const current = await slotDevice();
    return all.filter((d) => d.device !== current);
  };

  // ---- data upgrade -------------------------------------------------------------------------
  const viaService = async (target: LoopDisk) => {
    await dropCaches();
    const t0 = performance.now();
    const j = await job('/disks/array/upgrade', {
      mountpoint: '/mnt/disk1',
      device: target.device,
      confirmation: `ERASE ${target.device}`,
    });
    const elapsed = (performance.now() - t0) / 1000;
    return { elapsed, phases: j.result.phases as Array<{ phase: string; seconds: number }> };
  };
  const stage = path.join(l.work, 'hand-copy');
  const handConf = path.join(l.work, 'hand.conf');
  const byHand = async (target: LoopDisk) => {
    await run('wipefs', ['-a', target.device]);
    await run('mkfs.xfs', ['-q', '-f', target.device]);
    await fs.mkdir(stage, { recursive: true });
    await run('mount', [target.device, stage]);
    try {
      const text = await fs.readFile(conf, 'utf8');
      await fs.writeFile(handConf, text.split(`${l.real('/mnt/disk1')}/`).join(`${stage}/`));
      const check = async (audit: boolean) => {
        await dropCaches();
        return timed(() =>
          run('snapraid', ['-c', handConf, 'check', ...(audit ? ['-a'] : []), '-d', 'd1'], {
            maxBuffer: 64 * MiB,
          }),
        );
      };
      await dropCaches();
      const rsync = await timed(() =>
        run('rsync', ['-aHAX', `${l.real('/mnt/disk1')}/`, `${stage}/`], { maxBuffer: 64 * MiB }),
      );
      const withParity = await check(false);
      const audit = await check(true);
      return { rsync, withParity, audit };
    } finally {
      await run('umount', [stage]);
    }
  };

  const service: number[] = [];
  const hand: number[] = [];
  const handSame: number[] = [];
  const handParts: Array<{ rsync: number; withParity: number; audit: number }> = [];
  let lastPhases: Array<{ phase: string; seconds: number }> = [];
  await viaService((await free())[0]!); // warm-up
  for (let i = 0; i < RUNS; i++) {
    const [forService, forHand] = await free();
    const s = async () => {
      const r = await viaService(forService!);
      service.push(r.elapsed);
      lastPhases = r.phases;
    };
    const h = async () => {
      const r = await byHand(forHand!);
      hand.push(r.rsync + r.withParity);
      handSame.push(r.rsync + r.audit);
      handParts.push(r);
    };
    if (i % 2 === 0) {
      await s();
      await h();
    } else {
      await h();
      await s();
    }
  }
  const upgradeRatio = median(service) / median(hand);
  const sameWorkRatio = median(service) / median(handSame);

  // ---- rebuild -----------------------------------------------------------------------------
  /** The slot's disk dies: unmounted, its signature wiped (it is a blank spare afterwards). */
  const destroy = async () => {
    const current = await slotDevice();
    await run('umount', [l.real('/mnt/disk1')]);
    await run('wipefs', ['-a', current]);
  };
  const rebuildService: number[] = [];
  const rebuildJob: number[] = [];
  const rebuildHand: number[] = [];
  const replaceOnce = async (target: LoopDisk) => {
    await dropCaches();
    const t0 = performance.now();
    const j = await job('/disks/array/replace', {
      mountpoint: '/mnt/disk1',
      device: target.device,
      confirmation: `ERASE ${target.device}`,
    });
    const total = (performance.now() - t0) / 1000;
    const rebuild = (j.result.phases as Array<{ phase: string; seconds: number }>).find(
      (p) => p.phase === 'rebuild',
    )!.seconds;
    return { total, rebuild, restored: j.result.restoredFiles as number };
  };
  const fixByHand = async (target: LoopDisk) => {
    await run('wipefs', ['-a', target.device]);
    await run('mkfs.xfs', ['-q', '-f', target.device]);
    await run('mount', [target.device, l.real('/mnt/disk1')]);
    try {
      await dropCaches();
      return await timed(() => run('snapraid', ['-c', conf, 'fix', '-d', 'd1'], { maxBuffer: 256 * MiB }));
    } finally {
      await run('umount', [l.real('/mnt/disk1')]);
    }
  };
  let restored = 0;
  await destroy();
  for (let i = 0; i < RUNS; i++) {
    // the slot is missing here; the hand rebuild leaves it missing again
    const [a, b] = await free();
    const s = async () => {
      const r = await replaceOnce(a!);
      rebuildService.push(r.rebuild);
      rebuildJob.push(r.total);
      restored = r.restored;
      await destroy();
    };
    const h = async () => rebuildHand.push(await fixByHand(b!));
    if (i % 2 === 0) {
      await h();
      await s();
    } else {
      await s();
      await h();
    }
  }
  const rebuildRatio = median(rebuildService) / median(rebuildHand);

  console.log(
    `disk jobs, ${DATA_MIB} MiB in ${FILES} files on /mnt/disk1 (xfs loop disks), ${RUNS} runs each, cold cache`,
  );
  console.log('data upgrade');
  console.log(
    `  by hand, rsync -aHAX + snapraid check -d d1: ${secs(hand)} s, median ${median(hand).toFixed(2)} s`,
  );
  console.log(
    `  by hand, rsync -aHAX + snapraid check -a -d d1: ${secs(handSame)} s, median ${median(handSame).toFixed(2)} s`,
  );
  console.log(
    `    rsync ${secs(handParts.map((p) => p.rsync))} s; check -d ${secs(handParts.map((p) => p.withParity))} s; check -a -d ${secs(handParts.map((p) => p.audit))} s`,
  );
  console.log(
    `  through the service (whole job): ${secs(service)} s, median ${median(service).toFixed(2)} s`,
  );
  console.log(`    last run's phases: ${lastPhases.map((p) => `${p.phase} ${p.seconds}s`).join(', ')}`);
  console.log(
    `  ratio to rsync + check -d: ${upgradeRatio.toFixed(3)}× (target ≤ ${UPGRADE_TARGET}×) ${upgradeRatio <= UPGRADE_TARGET ? '✔' : '✘'}`,
  );
  console.log(
    `  ratio to rsync + check -a -d (the same work as the job's copy and verify): ${sameWorkRatio.toFixed(3)}×`,
  );
  console.log(`rebuild (${restored} files restored by the job)`);
  console.log(
    `  by hand (snapraid fix -d d1): ${secs(rebuildHand)} s, median ${median(rebuildHand).toFixed(2)} s`,
  );
  console.log(
    `  the job's rebuild phase: ${secs(rebuildService)} s, median ${median(rebuildService).toFixed(2)} s (whole replace job: ${secs(rebuildJob)} s)`,
  );
  console.log(
    `  ratio ${rebuildRatio.toFixed(3)}× (target ≤ ${REBUILD_TARGET}×) ${rebuildRatio <= REBUILD_TARGET ? '✔' : '✘'}`,
  );
  process.exitCode = upgradeRatio <= UPGRADE_TARGET && rebuildRatio <= REBUILD_TARGET ? 0 : 1;
} finally {
  await lab?.destroy();
  for (const d of spares) await d.destroy().catch(() => undefined);
}
