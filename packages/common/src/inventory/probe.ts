/**
 * Filesystem facts of the nodes udev has no record of, from batched
 * `blkid -p -i -o export a b c…` (03 §2.2 step 4).
 *
 * One `blkid` per node costs a process start (≈5 ms here) for a probe that takes well under a
 * millisecond on a disk whose blocks are cached; 24 of them dominated the inventory read. blkid
 * accepts several devices in low-level mode but stops at the first one whose probe fails, and on
 * its own "no signature" counts as a failure (exit 2). `-i` adds the I/O-limit values (ioctls, no
 * extra read), so a blank device still prints a block (DEVNAME and the limits, no TYPE) and the
 * batch goes on. The nodes are split into chains (≤ `concurrency` at once); each chain runs
 * batches. When a batch stops anyway (ambivalent signatures, a refused open), the devices printed
 * before the stop get their facts, the device right after the last printed one is the one that
 * stopped it (its verdict from the exit code and stderr, as for a single probe), and the next
 * batch starts after it. A device that vanished meanwhile is skipped by blkid without output; it
 * reads as "no filesystem", as a single probe of it does.
 *
 * A device whose open is refused (a container may not open the system disk: `EPERM`; an empty card
 * reader: `ENOMEDIUM`; a node without a driver: `ENXIO`) would stop every batch it is in, and the
 * devices after it would be handed to a second run (issue 32: three loop disks in two runs per
 * plan). So each device is first opened here the way blkid opens it (read-only, non-blocking,
 * nothing read) and closed: one that cannot be opened is `failed` without a blkid run (one that
 * vanished, `ENOENT`, reads as "no filesystem", as blkid skips it), and only the others are
 * batched. An open that takes longer than `OPEN_CHECK_MS` (a hung disk) fails that device alone.
 * What still stops a batch then is a device that opens but cannot be read or is ambivalent; the
 * devices after it were never opened by that run and go to the next one.
 *
 * Every node is probed at most once per call (issue 25): a batch that times out is not re-run.
 * blkid buffers its output, so a killed run usually leaves none: the devices whose block came out
 * whole before the kill keep their facts, and every other device of that run is `failed` (its
 * probe did not finish within the timeout). Re-running them one by one probed each node twice and
 * waited for the hung disk twice; the next inventory read probes them afresh.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { CommandResult, CommandRunner } from '../command.ts';
import { type FsFacts, NO_FILESYSTEM, parseBlkidExport } from './udev.ts';

export type ProbeResult = FsFacts | 'failed';

export interface BlkidProbeOptions {
  runner: CommandRunner;
  /** Chains running at once, hence `blkid` processes at once (03 §2.2: at most 8). */
  concurrency: number;
  /** Timeout of one `blkid` run; a batch that hits it is not re-run (its unfinished devices fail). */
  timeoutMs: number;
  /**
   * Opens a device read-only as blkid would and closes it: null when it opened, else the errno code.
   * Default: `open(2)` with `O_RDONLY | O_NONBLOCK` (a test injects a refusal here).
   */
  openCheck?: (device: string) => Promise<string | null>;
}

/** How long the open check waits for a device's open(2); a slower one counts as a failed probe. */
export const OPEN_CHECK_MS = 2_000;

/**
 * Opens still outstanding (a disk whose driver does not answer). Such an open holds a thread of
 * libuv's pool until the kernel gives up; a device is never opened again while one is outstanding
 * (a later check waits for that one), so a hung disk holds at most one thread, and it counts as
 * failed (its probe could not finish) without a blkid run that would hang on it too and fail the
 * nodes after it.
 */
const outstanding = new Map<string, Promise<string | null>>();

/**
 * Opens `device` read-only and non-blocking (as blkid does), reads nothing, closes it: null when it
 * opened, else the errno code (`ETIMEDOUT` when no answer came within `timeoutMs`, also from an
 * earlier open still outstanding, which is waited for rather than repeated).
 */
export async function openCheck(device: string, timeoutMs = OPEN_CHECK_MS): Promise<string | null> {
  // a read running at the same time shares the open in flight (a hung one is not opened again)
  let attempt = outstanding.get(device);
  if (attempt === undefined) {
    const started = (async () => {
      try {
        const handle = await open(device, constants.O_RDONLY | constants.O_NONBLOCK);
        await handle.close();
        return null;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code ?? 'EIO';
      }
    })();
    attempt = started;
    outstanding.set(device, started);
    void started.finally(() => {
      if (outstanding.get(device) === started) outstanding.delete(device);
    });
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('ETIMEDOUT'), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([attempt, late]);
  } finally {
    clearTimeout(timer);
  }
}

const BLKID_ENV = { LC_ALL: 'C', PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

/** Probes every device path once; the answer maps each path to its facts or `'failed'`. */
export async function probeWithBlkid(
  devices: readonly string[],
  options: BlkidProbeOptions,
): Promise<Map<string, ProbeResult>> {
  const results = new Map<string, ProbeResult>();
  const unique = [...new Set(devices)];
  const check = options.openCheck ?? openCheck;
  const refused = await Promise.all(unique.map((device) => check(device)));
  const openable: string[] = [];
  unique.forEach((device, i) => {
    const code = refused[i] ?? null;
    if (code === null) openable.push(device);
    else results.set(device, code === 'ENOENT' ? NO_FILESYSTEM : 'failed');
  });
  if (openable.length === 0) return results;
  const chains = splitEvenly(openable, Math.max(1, options.concurrency));
  await Promise.all(chains.map((chain) => runChain(chain, options, results)));
  return results;
}

async function runChain(
  chain: string[],
  options: BlkidProbeOptions,
  results: Map<string, ProbeResult>,
): Promise<void> {
  let rest = chain;
  while (rest.length > 0) {
    const result = await runBlkid(rest, options);
    if (result.timedOut) {
      const finished = completeBlocks(result.stdout);
      for (const device of rest) results.set(device, finished.get(device) ?? 'failed');
      return;
    }
    const printed = parseBlkidBatch(result.stdout);
    let last = -1;
    rest.forEach((device, i) => {
      if (printed.has(device)) last = i;
    });
    for (let i = 0; i <= last; i++) {
      const device = rest[i] as string;
      results.set(device, printed.get(device) ?? NO_FILESYSTEM);
    }
    if (result.exitCode === 0) {
      for (const device of rest.slice(last + 1)) results.set(device, NO_FILESYSTEM);
      return;
    }
    const stopper = rest[last + 1];
    if (stopper === undefined) return;
    results.set(stopper, stopVerdict(result));
    rest = rest.slice(last + 2);
  }
}

/** Exit 2 is "no signature" — unless blkid also reports an error (e.g. the open was refused). */
function stopVerdict(result: CommandResult): ProbeResult {
  return result.exitCode === 2 && !/error/i.test(result.stderr) ? NO_FILESYSTEM : 'failed';
}

function runBlkid(devices: readonly string[], options: BlkidProbeOptions): Promise<CommandResult> {
  return options.runner.run('blkid', ['-p', '-i', '-o', 'export', ...devices], {
    timeoutMs: options.timeoutMs,
    env: BLKID_ENV,
  });
}

/** Splits `blkid -p [-i] -o export` output of several devices (blank-line separated, DEVNAME first). */
export function parseBlkidBatch(text: string): Map<string, FsFacts> {
  const out = new Map<string, FsFacts>();
  for (const block of text.split(/\n\s*\n/)) {
    const line = block.split('\n').find((l) => l.startsWith('DEVNAME='));
    if (line === undefined) continue;
    out.set(line.slice('DEVNAME='.length).replace(/\\(.)/g, '$1'), parseBlkidExport(block));
  }
  return out;
}

/**
 * The blocks of a killed run's output that are certainly whole: blkid separates devices by a blank
 * line printed before the next device's block, so the last block may have been cut.
 */
function completeBlocks(stdout: string): Map<string, FsFacts> {
  const end = stdout.lastIndexOf('\n\n');
  return end < 0 ? new Map() : parseBlkidBatch(stdout.slice(0, end));
}

function splitEvenly<T>(items: T[], parts: number): T[][] {
  const n = Math.min(parts, items.length);
  const chains: T[][] = Array.from({ length: n }, () => []);
  for (const [i, item] of items.entries()) chains[i % n]?.push(item);
  return chains;
}
