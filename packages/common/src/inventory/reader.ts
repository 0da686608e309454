import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError, notConfigured } from '../errors.ts';
import type { CommandRunner } from '../command.ts';
import type { HostPaths } from '../host-paths.ts';
import { identityFromLinks, isPartitionLink } from './by-id.ts';
import { type BlockNode, type SystemMount, SYSTEM_TARGETS, resolveSystemDisks } from './boot.ts';
import { isForeignStick } from './foreign-stick.ts';
import type {
  DiskInventory,
  DiskInventoryEntry,
  InventoryReadOptions,
  InventoryReader,
  PartitionEntry,
} from './model.ts';
import { type MountInfoEntry, lastMountAt, mountHolding, parseMountInfo, parseSwaps } from './mounts.ts';
import { type ProbeResult, probeWithBlkid } from './probe.ts';
import { ProbeMemory } from './probe-memory.ts';
import { NO_FILESYSTEM, parseUdevRecord } from './udev.ts';

export { isForeignStick, isUnraidLabel } from './foreign-stick.ts';
export type { LabelFacts, StickCandidate, StickProbes } from './foreign-stick.ts';
export { identityFromLinks } from './by-id.ts';
export { parseMountInfo, parseSwaps } from './mounts.ts';
export type { MountInfoEntry } from './mounts.ts';
export { parseBlkidExport, parseUdevRecord } from './udev.ts';
export { parseBlkidBatch, probeWithBlkid } from './probe.ts';
export type { BlkidProbeOptions, ProbeResult as BlkidProbeResult } from './probe.ts';
export type { FsFacts } from './udev.ts';

export interface InventoryReaderOptions {
  paths: HostPaths;
  runner: CommandRunner;
  /** Lab mode (03 §2.5): list loop devices backed by regular files (inside imageDir when set). */
  lab?: { enabled: boolean; imageDir?: string | undefined };
  /** Timeout of each `blkid -p` run. Default 10 s (03 §13). */
  blkidTimeoutMs?: number;
  /**
   * At most this many `blkid` at once, each probing a batch of nodes (03 §2.2: ≤ 8). Default: the
   * number of CPUs, at most 8 (a probe of a cached disk is CPU-bound; more runs only queue).
   */
  blkidConcurrency?: number;
}

/** Kernel names that are never disks (loop: only in lab mode). */
const EXCLUDED_PREFIXES = ['dm-', 'md', 'sr', 'ram', 'zram', 'nbd', 'fd', 'loop'];
const MMC_SPECIAL = /^mmcblk\d+(boot\d+|rpmb)$/;
const LOOP_NAME = /^loop\d+$/;

/** Everything the reader learns about one `/sys/class/block` entry. */
interface RawNode extends BlockNode {
  sizeBytes: number;
  dev: string | null;
  holders: string[];
  number: number | null;
}

/**
 * Creates the sysfs/udev inventory reader (03 §2.2–§2.5). Every call reads a fresh inventory. It
 * never opens a disk except for the `blkid -p` fallback when udev has no record of a node; a read
 * with `reuseProbes` (a listing, never a read a write depends on) reuses an earlier fallback
 * probe's answer for a node that provably has not changed since (probe-memory.ts).
 */
export function createInventoryReader(options: InventoryReaderOptions): InventoryReader {
  const memory = new ProbeMemory(options.paths.sysClassBlock, options.paths.devDir);
  return { read: (read) => readInventory(options, { ...read, memory }) };
}

export async function readInventory(
  options: InventoryReaderOptions,
  read: InventoryReadOptions & { memory?: ProbeMemory } = {},
): Promise<DiskInventory> {
  const { paths } = options;
  const labMode = options.lab?.enabled === true;
  const names = await listBlockNames(paths.sysClassBlock);
  const [nodes, mountsText, swapsText] = await Promise.all([
    Promise.all(names.map((n) => readNode(paths.sysClassBlock, n))),
    readText(path.join(paths.procDir, 'self', 'mountinfo')),
    readText(path.join(paths.procDir, 'swaps')),
  ]);
  const graph = new Map<string, RawNode>();
  for (const n of nodes) if (n) graph.set(n.name, n);
  const byDev = new Map<string, string>();
  for (const n of graph.values()) if (n.dev) byDev.set(n.dev, n.name);

  const realDisks = [...graph.values()].filter(isCandidateDisk);
  const loopDisks = labMode ? await labLoops(graph, paths.sysClassBlock, options.lab?.imageDir) : [];
  const realNames = new Set(realDisks.map((d) => d.name));

  const partitionsOf = new Map<string, RawNode[]>();
  for (const n of graph.values()) {
    if (!n.partition || n.parent === null) continue;
    const list = partitionsOf.get(n.parent) ?? [];
    list.push(n);
    partitionsOf.set(n.parent, list);
  }
  for (const list of partitionsOf.values()) list.sort((a, b) => (a.number ?? 0) - (b.number ?? 0));

  const mounts = parseMountInfo(mountsText ?? '');
  const swaps = parseSwaps(swapsText ?? '');
  const blockOfMount = async (m: MountInfoEntry): Promise<string | null> => {
    if (m.major !== 0)
      return byDev.get(`${m.major}:${m.minor}`) ?? (await sysDevBlockName(paths.sysDevBlock, m));
    if (m.source.startsWith('/dev/')) return devNodeName(paths.devDir, m.source);
    return null;
  };
  const mountBlocks = await Promise.all(mounts.map(blockOfMount));
  const swapBlocks = await Promise.all(
    swaps.map((s) =>
      s.type === 'partition' && s.file.startsWith('/dev/') ? devNodeName(paths.devDir, s.file) : null,
    ),
  );

  // 03 §2.4: system disks, failing closed.
  const systemMounts: SystemMount[] = [];
  const pushMount = (target: string, m: MountInfoEntry | null) => {
    if (!m) return;
    const block = mountBlocks[mounts.indexOf(m)] ?? null;
    systemMounts.push({
      target,
      source: m.source,
      fsType: m.fsType,
      blockBacked: m.major !== 0 || m.source.startsWith('/dev/'),
      block,
    });
  };
  for (const t of SYSTEM_TARGETS) pushMount(t, lastMountAt(mounts, t));
  pushMount(paths.stateDir, mountHolding(mounts, paths.stateDir));
  swaps.forEach((s, i) => {
    if (s.type !== 'partition' || path.basename(s.file).startsWith('zram')) return;
    systemMounts.push({
      target: '[swap]',
      source: s.file,
      fsType: 'swap',
      blockBacked: true,
      block: swapBlocks[i] ?? null,
    });
  });
  const boot = resolveSystemDisks(systemMounts, graph, realNames);
  if (!boot.ok && !labMode) {
    throw new AppError(
      503,
      'boot_device_unknown',
      `The system disk cannot be identified (the root filesystem is mounted from "${boot.rootSource}": ${boot.reason}), so no disk operation is allowed; run the service on a host whose root is on a local disk, or turn lab mode on for tests.`,
      { rootSource: boot.rootSource, reason: boot.reason },
    );
  }
  const bootDisks = boot.ok ? boot.disks : new Set<string>();
  const listed = boot.ok ? [...realDisks, ...loopDisks] : loopDisks;

  // mount targets in mountinfo order, then active swap areas
  const mountTargets: { block: string; target: string }[] = [];
  mounts.forEach((m, i) => {
    const block = mountBlocks[i];
    if (block) mountTargets.push({ block, target: paths.logical(m.target) ?? m.target });
  });
  swaps.forEach((_s, i) => {
    const block = swapBlocks[i];
    if (block) mountTargets.push({ block, target: '[swap]' });
  });

  // by-id links, read once (not for loop devices: they are weak identity by definition)
  const links = await readByIdLinks(paths.devDir, realNames);

  const facts = await probeNodes(
    listed.flatMap((disk) => [disk, ...(partitionsOf.get(disk.name) ?? [])]),
    options,
    read,
  );
  read.memory?.keepOnly(new Set(graph.keys()));
  const entries = await Promise.all(
    listed.map((disk) =>
      buildEntry(disk, {
        partitions: partitionsOf.get(disk.name) ?? [],
        links: disk.name.startsWith('loop') ? [] : (links.get(disk.name) ?? []),
        mountTargets,
        boot: bootDisks.has(disk.name),
        lab: LOOP_NAME.test(disk.name),
        facts: (node) => facts.get(node.name) ?? 'failed',
        model: () => readTrimmed(path.join(paths.sysClassBlock, disk.name, 'device', 'model')),
      }),
    ),
  );
  entries.sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0));
  return { labMode, bootResolved: boot.ok, disks: entries };
}

function isCandidateDisk(n: RawNode): boolean {
  if (n.partition || n.sizeBytes <= 0) return false;
  if (EXCLUDED_PREFIXES.some((p) => n.name.startsWith(p))) return false;
  return !MMC_SPECIAL.test(n.name);
}

async function labLoops(
  graph: Map<string, RawNode>,
  sysClassBlock: string,
  imageDir: string | undefined,
): Promise<RawNode[]> {
  const imageRoot = imageDir ? attempt(() => fs.realpathSync(imageDir), null) : null;
  if (imageDir && imageRoot === null) return [];
  const loops = [...graph.values()].filter((n) => LOOP_NAME.test(n.name) && !n.partition && n.sizeBytes > 0);
  const kept = await Promise.all(
    loops.map(async (n) => {
      const backing = await readTrimmed(path.join(sysClassBlock, n.name, 'loop', 'backing_file'));
      if (backing === null || backing.endsWith(' (deleted)') || !path.isAbsolute(backing)) return null;
      const st = attempt(() => fs.statSync(backing), null);
      if (!st?.isFile()) return null;
      if (imageRoot !== null) {
        const real = attempt(() => fs.realpathSync(backing), null);
        if (real === null || !real.startsWith(`${imageRoot}/`)) return null;
      }
      return n;
    }),
  );
  return kept.filter((n): n is RawNode => n !== null);
}

interface EntryInputs {
  partitions: RawNode[];
  links: string[];
  mountTargets: readonly { block: string; target: string }[];
  boot: boolean;
  lab: boolean;
  facts: (node: RawNode) => ProbeResult;
  model: () => Promise<string | null>;
}

async function buildEntry(disk: RawNode, input: EntryInputs): Promise<DiskInventoryEntry> {
  const model = input.lab ? null : await input.model();
  const diskFacts = input.facts(disk);
  const partFacts = input.partitions.map((p) => input.facts(p));
  let probeFailed = diskFacts === 'failed';
  const own = diskFacts === 'failed' ? NO_FILESYSTEM : diskFacts;
  const partitions: (PartitionEntry & { labelFatboot: string | null })[] = input.partitions.map((p, i) => {
    const f = partFacts[i];
    if (f === 'failed') probeFailed = true;
    const facts = f === undefined || f === 'failed' ? NO_FILESYSTEM : f;
    return {
      device: `/dev/${p.name}`,
      number: p.number ?? 0,
      sizeBytes: p.sizeBytes,
      filesystem: facts.filesystem,
      label: facts.label,
      fsUuid: facts.fsUuid,
      labelFatboot: facts.labelFatboot,
    };
  });
  const first = partitions.find((p) => p.number === 1);
  const useOwn = own.filesystem !== null || !first || first.filesystem === null;
  const shown = useOwn ? own : first;
  const identity = input.lab
    ? { wwn: null, serial: null, byIdName: null, weakIdentity: true }
    : identityFromLinks(input.links);
  const blockNames = new Set([disk.name, ...input.partitions.map((p) => p.name)]);
  const mountpoints = [
    ...new Set(input.mountTargets.filter((m) => blockNames.has(m.block)).map((m) => m.target)),
  ];
  const holders = [...new Set([...disk.holders, ...input.partitions.flatMap((p) => p.holders)])];
  const foreignStick = isForeignStick({
    filesystem: own.filesystem,
    label: own.label,
    labelFatboot: own.labelFatboot,
    partitions,
  });
  const entry: DiskInventoryEntry = {
    device: `/dev/${disk.name}`,
    sizeBytes: disk.sizeBytes,
    model: model ?? null,
    wwn: identity.wwn,
    serial: identity.serial,
    byIdName: identity.byIdName,
    weakIdentity: identity.weakIdentity,
    filesystem: shown.filesystem,
    label: shown.label,
    fsUuid: shown.fsUuid,
    fsDevice: shown.filesystem === null ? null : useOwn ? `/dev/${disk.name}` : (first?.device ?? null),
    partitions: partitions.map(({ labelFatboot: _drop, ...p }) => p),
    mountpoints,
    holders,
    inUse: mountpoints.length > 0 || holders.length > 0,
    probeFailed,
    boot: input.boot,
    foreignStick,
  };
  if (input.lab) entry.lab = true;
  return entry;
}

/**
 * udev record first; batched `blkid -p -o export` only for the nodes udev has no record of (with
 * `reuseProbes`, only for those that may have changed since their last probe).
 */
async function probeNodes(
  nodes: readonly RawNode[],
  options: InventoryReaderOptions,
  read: InventoryReadOptions & { memory?: ProbeMemory },
): Promise<Map<string, ProbeResult>> {
  const facts = new Map<string, ProbeResult>();
  const records = await Promise.all(
    nodes.map((node) =>
      node.dev === null ? null : readText(path.join(options.paths.udevData, `b${node.dev}`)),
    ),
  );
  const unknown = nodes.filter((node, i) => {
    const record = records[i];
    if (record === null || record === undefined) return true;
    facts.set(node.name, parseUdevRecord(record));
    return false;
  });
  if (unknown.length === 0) return facts;
  const memory = read.memory;
  const before = new Map<string, string | null>();
  const toProbe: RawNode[] = [];
  for (const node of unknown) {
    const fingerprint = memory ? memory.fingerprint(node) : null;
    const recalled = read.reuseProbes ? memory?.recall(node.name, fingerprint) : undefined;
    if (recalled !== undefined) facts.set(node.name, recalled);
    else {
      before.set(node.name, fingerprint);
      toProbe.push(node);
    }
  }
  if (toProbe.length === 0) return facts;
  const pathOf = (node: RawNode) => path.join(options.paths.devDir, node.name);
  const probed = await probeWithBlkid(toProbe.map(pathOf), {
    runner: options.runner,
    concurrency: options.blkidConcurrency ?? Math.min(8, os.availableParallelism()),
    timeoutMs: options.blkidTimeoutMs ?? 10_000,
  });
  for (const node of toProbe) {
    const result = probed.get(pathOf(node)) ?? 'failed';
    facts.set(node.name, result);
    memory?.remember(node.name, before.get(node.name) ?? null, memory.fingerprint(node), result);
  }
  return facts;
}

async function listBlockNames(sysClassBlock: string): Promise<string[]> {
  try {
    return fs.readdirSync(sysClassBlock);
  } catch (err) {
    throw notConfigured(
      `The block device list ${sysClassBlock} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); run the service on a Linux host with sysfs mounted.`,
    );
  }
}

async function readNode(sysClassBlock: string, name: string): Promise<RawNode | null> {
  const dir = path.join(sysClassBlock, name);
  const [size, dev, partition, slaves, holders] = await Promise.all([
    readTrimmed(path.join(dir, 'size')),
    readTrimmed(path.join(dir, 'dev')),
    readTrimmed(path.join(dir, 'partition')),
    listDir(path.join(dir, 'slaves')),
    listDir(path.join(dir, 'holders')),
  ]);
  if (size === null) return null;
  const isPartition = partition !== null;
  let parent: string | null = null;
  if (isPartition) {
    const real = attempt(() => fs.realpathSync(dir), null);
    parent = real === null ? null : path.basename(path.dirname(real));
  }
  const sectors = Number.parseInt(size, 10);
  return {
    name,
    partition: isPartition,
    parent,
    slaves,
    holders,
    sizeBytes: Number.isFinite(sectors) ? sectors * 512 : 0,
    dev: dev && /^\d+:\d+$/.test(dev) ? dev : null,
    number: isPartition ? Number.parseInt(partition, 10) || null : null,
  };
}

/** `/dev/disk/by-id` link names per kernel name; each link resolved with one readlink. */
async function readByIdLinks(devDir: string, keep: ReadonlySet<string>): Promise<Map<string, string[]>> {
  const dir = path.join(devDir, 'disk', 'by-id');
  const out = new Map<string, string[]>();
  const names = attempt(() => fs.readdirSync(dir), [] as string[]);
  await Promise.all(
    names
      .filter((n) => !isPartitionLink(n))
      .map(async (n) => {
        const target = attempt(() => fs.readlinkSync(path.join(dir, n)), null);
        if (target === null) return;
        const resolved = path.resolve(dir, target);
        if (path.dirname(resolved) !== devDir) return;
        const kernel = path.basename(resolved);
        if (!keep.has(kernel)) return;
        const list = out.get(kernel) ?? [];
        list.push(n);
        out.set(kernel, list);
      }),
  );
  return out;
}

/** Kernel name of a `/dev/...` node (realpath through the host's /dev: /dev/mapper/x → dm-0). */
async function devNodeName(devDir: string, source: string): Promise<string | null> {
  const hostPath = path.join(devDir, source.slice('/dev/'.length));
  const real = attempt(() => fs.realpathSync(hostPath), null);
  return real === null ? path.basename(source) : path.basename(real);
}

async function sysDevBlockName(sysDevBlock: string, m: MountInfoEntry): Promise<string | null> {
  const real = attempt(() => fs.realpathSync(path.join(sysDevBlock, `${m.major}:${m.minor}`)), null);
  return real === null ? null : path.basename(real);
}

async function readText(file: string): Promise<string | null> {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

async function readTrimmed(file: string): Promise<string | null> {
  const text = await readText(file);
  if (text === null) return null;
  const t = text.trim();
  return t === '' ? null : t;
}

async function listDir(dir: string): Promise<string[]> {
  return attempt(() => fs.readdirSync(dir), [] as string[]);
}

/**
 * sysfs, procfs, devtmpfs and /run are memory filesystems: their reads are done synchronously,
 * since a thread-pool round trip costs more than the read itself (≈200 reads per inventory).
 */
function attempt<T, D>(read: () => T, fallback: D): T | D {
  try {
    return read();
  } catch {
    return fallback;
  }
}
