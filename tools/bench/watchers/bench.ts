/**
 * All watchers together on 24 disks (issue 22): CPU at their default intervals, and no disk woken
 * from standby. The service runs in-process on a synthetic host tree (sysfs, /dev, udev and /proc of
 * 24 SATA disks and a boot disk: `startSandbox({ hostRoot })`), with the array of those 24 disks
 * recorded (2 parity, 21 data, 1 cache) and a `smartctl` first on the runner's PATH that answers as
 * a disk does (a real smartctl output), every second disk asleep: it logs every call, and a call
 * without `-n standby` to a sleeping disk counts as waking it.
 *
 *   A. CPU per cycle of each watcher (this process and its reaped children: the smartctl spawns),
 *      cycles driven one after the other with runOnce; the steady-state share of one core is the
 *      sum over the watchers of CPU per cycle / default interval.
 *   B. the loops on real timers at their default intervals for --duration seconds (after 10 s in
 *      which every first cycle ran), and the same server on a host without an array in the same run
 *      (reference: an idle service): the fast loops' share on the clock.
 *   Reference tool (same run): the same 24 `smartctl --json -a -n standby` spawned directly one
 *   after the other (what smartd does at each check), against one SMART cycle of the service.
 *
 * Target: < 1 % of one core; 0 smartctl calls without `-n standby`, 0 disks woken.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { manualTimers, realTimers, type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { createCommandRunner } from '@appliance/common';
import { DEFAULT_INTERVALS, type WatcherName } from '@appliance/watchers';
import {
  buildSyntheticHost,
  mountLine,
  type SyntheticDisk,
} from '../../../packages/common/src/inventory/test-support/synthetic-host.ts';

const run = promisify(execFile);
const { values } = parseArgs({
  options: { duration: { type: 'string', default: '60' }, disks: { type: 'string', default: '24' } },
});
const DURATION_S = Number(values.duration);
const DISKS = Number(values.disks);
const SECTORS = (4 * 1024 ** 4) / 512; // 4 TiB disks
const FIXTURES = path.resolve(import.meta.dirname, '../../../packages/watchers/fixtures/smartctl');
const CYCLES: Record<string, number> = { smart: 10 };

/** CPU seconds of this process and its reaped children (utime, stime, cutime, cstime). */
async function cpuSeconds(): Promise<number> {
  const stat = await fs.readFile('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]), 0) / 100;
}
const pct = (x: number) => `${(x * 100).toFixed(3)} %`;
const diskName = (i: number) =>
  i < 26
    ? `sd${String.fromCharCode(97 + i)}`
    : `sd${String.fromCharCode(96 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`;
const serialOf = (i: number) => `WD-BENCH${String(i).padStart(4, '0')}`;
const uuidOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const wwnOf = (i: number) => `0x50014ee2b${String(i).padStart(7, '0')}`;

function slot(i: number): { role: 'parity' | 'data' | 'cache'; index: number; dir: string } {
  if (i < 2) return { role: 'parity', index: i + 1, dir: `parity${i + 1}` };
  if (i === DISKS - 1) return { role: 'cache', index: 1, dir: 'cache' };
  return { role: 'data', index: i - 1, dir: `disk${i - 1}` };
}

interface Host {
  root: string;
  hostRoot: string;
  shim: string;
  shimLog: string;
  sleeping: number;
  runnerPath: string;
}

/** The synthetic host (and the sandbox root its mount table points into), and the smartctl shim. */
async function prepare(work: string, withArray: boolean): Promise<Host> {
  const root = await fs.mkdtemp(path.join(work, 'root-'));
  const hostRoot = await fs.mkdtemp(path.join(work, 'host-'));
  const tag = path.basename(root);
  const disks: SyntheticDisk[] = [
    {
      name: 'vda',
      dev: '254:0',
      sectors: SECTORS / 64,
      links: ['virtio-bootdisk'],
      udev: { ID_FS_TYPE: 'ext4', ID_FS_UUID: 'boot-uuid' },
    },
  ];
  const mountinfo = [mountLine(20, '254:0', '/', 'ext4', '/dev/vda')];
  const sleeping: string[] = [];
  if (withArray)
    for (let i = 0; i < DISKS; i++) {
      disks.push({
        name: diskName(i),
        dev: `8:${i * 16}`,
        sectors: SECTORS,
        model: 'WDC WD40EFRX-68N32N0',
        links: [`ata-WDC_WD40EFRX-68N32N0_${serialOf(i)}`, `wwn-${wwnOf(i)}`],
        udev: { ID_FS_TYPE: 'xfs', ID_FS_UUID: uuidOf(i) },
      });
      const target = path.join(root, 'mnt', slot(i).dir);
      mountinfo.push(mountLine(100 + i, `8:${i * 16}`, target, 'xfs', `/dev/${diskName(i)}`));
      if (i % 2 === 1) sleeping.push(`/dev/${diskName(i)}`);
    }
  await buildSyntheticHost(hostRoot, disks, mountinfo);
  const shims = path.join(work, `shims-${tag}`);
  await fs.mkdir(shims);
  const shimLog = path.join(work, `smartctl-${tag}.log`);
  const sleepList = path.join(work, `sleeping-${tag}`);
  await fs.writeFile(sleepList, `${sleeping.join('\n')}\n`);
  await fs.writeFile(shimLog, '');
  const shim = path.join(shims, 'smartctl');
  await fs.writeFile(
    shim,
    `#!/bin/sh
# smartctl as a disk answers it (a real smartctl output); a sleeping disk says STANDBY under -n standby
dev=""; standby=no; prev=""
for a in "$@"; do
  case "$a" in /dev/*) dev="$a";; esac
  if [ "$prev" = "-n" ] && [ "$a" = standby ]; then standby=yes; fi
  prev="$a"
done
echo "$*" >> ${shimLog}
if grep -qx "$dev" ${sleepList}; then
  if [ $standby = yes ]; then cat ${FIXTURES}/loop-sat-sleep-smartctl-7.3.json; exit 2; fi
  echo "WOKEN $dev" >> ${shimLog}
fi
cat ${FIXTURES}/ata-healthy-wdc-wd140edfz.json
`,
    { mode: 0o755 },
  );
  return {
    root,
    hostRoot,
    shim,
    shimLog,
    sleeping: sleeping.length,
    runnerPath: `${shims}:/usr/sbin:/usr/bin:/sbin:/bin`,
  };
}

/** The array of the 24 disks, as array setup records it. */
async function recordArray(s: Sandbox): Promise<void> {
  const db = s.server.ctx.sqlite;
  db.prepare(
    'insert into array_settings (id, create_policy, migration_pending, migration_pending_since, created_at) values (1, ?, 0, null, ?)',
  ).run('mfs', new Date().toISOString());
  const insert = db.prepare(
    `insert into array_disks (role, role_index, device, filesystem, fs_uuid, wwn, serial, by_id_name, weak_identity, size_bytes, mountpoint)
     values (?, ?, ?, 'xfs', ?, ?, ?, ?, 0, ?, ?)`,
  );
  for (let i = 0; i < DISKS; i++) {
    const sl = slot(i);
    insert.run(
      sl.role,
      sl.index,
      `/dev/${diskName(i)}`,
      uuidOf(i),
      wwnOf(i),
      serialOf(i),
      `ata-WDC_WD40EFRX-68N32N0_${serialOf(i)}`,
      SECTORS * 512,
      `/mnt/${sl.dir}`,
    );
    await fs.mkdir(path.join(s.root, 'mnt', sl.dir), { recursive: true });
  }
}

async function server(h: Host, withArray: boolean): Promise<Sandbox> {
  const s = await startSandbox({
    root: h.root,
    hostRoot: h.hostRoot,
    config: { logLevel: 'silent' },
    start: { runner: createCommandRunner({ path: h.runnerPath }), watcherTimers: manualTimers },
  });
  if (withArray) await recordArray(s);
  return s;
}

/** The loops on real timers: 10 s for the first cycles, then the CPU share over the window. */
async function onTheClock(s: Sandbox): Promise<number> {
  s.server.ctx.watchers.useTimers(realTimers);
  await new Promise((r) => setTimeout(r, 10_000));
  const c0 = await cpuSeconds();
  await new Promise((r) => setTimeout(r, DURATION_S * 1000));
  const cpu = (await cpuSeconds()) - c0;
  s.server.ctx.watchers.useTimers(manualTimers);
  return cpu / DURATION_S;
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-watchers-'));
const open: Sandbox[] = [];
try {
  const host = await prepare(work, true);
  const s = await server(host, true);
  open.push(s);
  const w = s.server.ctx.watchers;
  console.log(
    `Watchers on ${DISKS} disks (synthetic host tree; smartctl answering with a real output, ${host.sleeping} disks asleep)`,
  );
  console.log(
    'A. per cycle: CPU of the service and its smartctl children, wall time; share at the default interval',
  );
  let steady = 0;
  const perCycle: Record<string, { cpu: number; wall: number }> = {};
  for (const name of w.names()) {
    const n = CYCLES[name] ?? 50;
    await w.runOnce(name); // the first cycle (history rows, records): not timed
    const c0 = await cpuSeconds();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await w.runOnce(name);
    const cpu = ((await cpuSeconds()) - c0) / n;
    const wall = (performance.now() - t0) / n;
    perCycle[name] = { cpu, wall };
    const status = w.status().find((x) => x.name === name)!;
    if (status.error) throw new Error(`the ${name} watcher failed: ${status.error.message}`);
    const interval = DEFAULT_INTERVALS[name as WatcherName] ?? status.intervalSeconds;
    const share = status.enabled ? cpu / interval : 0;
    steady += share;
    console.log(
      `  ${name.padEnd(12)} ${(cpu * 1000).toFixed(2).padStart(8)} ms CPU ${wall.toFixed(2).padStart(8)} ms wall   every ${String(interval).padStart(5)} s → ${pct(share)}${status.enabled ? '' : `  (off: ${status.disabledReason})`}`,
    );
  }
  const notes = w.status().find((x) => x.name === 'smart')!.notes;
  console.log(
    `  conditions held: ${s.server.ctx.conditions.holding().length} (a healthy array); SMART notes: ${notes.length} disks in standby, not woken`,
  );

  // the reference tool: the same 24 smartctl calls spawned directly, one after the other
  const REF = 10;
  const r0 = await cpuSeconds();
  const rt0 = performance.now();
  for (let k = 0; k < REF; k++)
    for (let i = 0; i < DISKS; i++)
      await run(host.shim, ['--json', '-a', '-n', 'standby', `/dev/${diskName(i)}`]).catch(() => undefined);
  const refCpu = ((await cpuSeconds()) - r0) / REF;
  const refWall = (performance.now() - rt0) / REF;

  console.log(`B. on the clock at the default intervals, ${DURATION_S} s after 10 s of first cycles`);
  const loaded = await onTheClock(s);
  const runs = w
    .status()
    .map((x) => `${x.name} ${x.runs}`)
    .join(', ');
  await s.close();
  open.pop();
  const empty = await prepare(work, false);
  const idle = await server(empty, false);
  open.push(idle);
  const reference = await onTheClock(idle);
  await idle.close();
  open.pop();
  console.log(
    `  ${DISKS} disks: ${pct(loaded)} of one core; the same service without an array (reference): ${pct(reference)}; difference ${pct(Math.max(0, loaded - reference))}`,
  );
  console.log(`  cycles run (A and B): ${runs}`);

  const log = (await fs.readFile(host.shimLog, 'utf8')).split('\n').filter(Boolean);
  const calls = log.filter((l) => !l.startsWith('WOKEN '));
  const withoutStandby = calls.filter((l) => !/(^| )-n standby( |$)/.test(l));
  const woken = log.filter((l) => l.startsWith('WOKEN '));
  const smart = perCycle['smart']!;
  console.log(`Reference tool (same run): ${DISKS} smartctl spawned directly, one after the other`);
  console.log(
    `  ${(refCpu * 1000).toFixed(1)} ms CPU, ${refWall.toFixed(1)} ms wall; the service's SMART cycle ${(smart.cpu * 1000).toFixed(1)} ms CPU, ${smart.wall.toFixed(1)} ms wall → ${(smart.cpu / refCpu).toFixed(2)}× CPU`,
  );
  const ok = steady < 0.01 && withoutStandby.length === 0 && woken.length === 0;
  console.log('Result');
  console.log(
    `  all watchers at their default intervals: ${pct(steady)} of one core (target < 1 %) ${steady < 0.01 ? '✔' : '✘'}`,
  );
  console.log(
    `  smartctl calls: ${calls.length}, without -n standby: ${withoutStandby.length}, sleeping disks woken: ${woken.length} (target 0) ${withoutStandby.length === 0 && woken.length === 0 ? '✔' : '✘'}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const sb of open) await sb.close().catch(() => undefined);
  await fs.rm(work, { recursive: true, force: true });
}
