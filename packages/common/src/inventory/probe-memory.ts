/**
 * What a `blkid -p` fallback probe found (03 §2.2 step 4, for the nodes udev has no record of),
 * remembered between inventory reads so that a read that only lists (`read({ reuseProbes: true })`,
 * e.g. `GET /disks/external`) probes again only the nodes that may have changed since
 * (docs/decisions/performance.md, "Disk inventory"). Every other read probes every such node, as
 * 03 §2.2 says, and refreshes what is remembered.
 *
 * A node's answer is reused only while its fingerprint is unchanged — everything through which a
 * change of its content or identity shows, read from sysfs and /dev without opening the disk:
 * - its `dev` number, size and `diskseq` (a new medium or a re-attached loop device);
 * - its write and discard counters from `/sys/class/block/<name>/stat` (every write that reached the
 *   device, by any path: a mounted filesystem, another node, direct I/O), and no I/O in flight;
 * - the modification and change times of its `/dev` node (a buffered write through the node, seen
 *   at once, before it reaches the device);
 * - for a partition, the same of its whole disk (a write through the disk's node can rewrite it).
 * The fingerprint is read before and after each probe; an answer is kept only when both agree, and a
 * failed probe is never kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProbeResult } from './probe.ts';

export interface ProbedNode {
  name: string;
  /** `major:minor`, or null. */
  dev: string | null;
  sizeBytes: number;
  /** The whole disk of a partition, else null. */
  parent: string | null;
}

interface Remembered {
  fingerprint: string;
  facts: Exclude<ProbeResult, 'failed'>;
}

export class ProbeMemory {
  private readonly known = new Map<string, Remembered>();
  private readonly sysClassBlock: string;
  private readonly devDir: string;

  constructor(sysClassBlock: string, devDir: string) {
    this.sysClassBlock = sysClassBlock;
    this.devDir = devDir;
  }

  /** The node's fingerprint now, or null when it cannot be trusted (I/O in flight, a read failed). */
  fingerprint(node: ProbedNode): string | null {
    const own = this.ownFingerprint(node.name);
    if (own === null) return null;
    const head = `${node.dev ?? '-'}|${node.sizeBytes}|${own}`;
    if (node.parent === null) return head;
    const parent = this.ownFingerprint(node.parent);
    return parent === null ? null : `${head}#${parent}`;
  }

  /** The remembered answer for a node whose fingerprint is `fingerprint`, if it still holds. */
  recall(name: string, fingerprint: string | null): ProbeResult | undefined {
    if (fingerprint === null) return undefined;
    const r = this.known.get(name);
    return r !== undefined && r.fingerprint === fingerprint ? r.facts : undefined;
  }

  /** Keeps a probe's answer when the node's fingerprint was the same before and after it. */
  remember(name: string, before: string | null, after: string | null, facts: ProbeResult): void {
    if (before === null || before !== after || facts === 'failed') this.known.delete(name);
    else this.known.set(name, { fingerprint: before, facts });
  }

  /** Forgets the nodes that are gone (a read lists every node there is). */
  keepOnly(names: ReadonlySet<string>): void {
    for (const name of this.known.keys()) if (!names.has(name)) this.known.delete(name);
  }

  private ownFingerprint(name: string): string | null {
    const dir = path.join(this.sysClassBlock, name);
    const stat = readText(path.join(dir, 'stat'));
    if (stat === null) return null;
    // read ios, merges, sectors, ticks; write ios, merges, sectors, ticks; in flight; io ticks;
    // time in queue; discard ios, merges, sectors, ticks; flush ios, ticks (Documentation/block/stat)
    const f = stat.trim().split(/\s+/);
    if (f.length < 11 || f[8] !== '0') return null;
    const writes = `${f[4]}.${f[6]}.${f[11] ?? '-'}.${f[13] ?? '-'}`;
    const diskseq = readText(path.join(dir, 'diskseq'))?.trim() ?? '-';
    let node: fs.BigIntStats;
    try {
      node = fs.statSync(path.join(this.devDir, name), { bigint: true });
    } catch {
      return null;
    }
    return `${diskseq}|${writes}|${node.ino}.${node.mtimeNs}.${node.ctimeNs}`;
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
