import { type CommandRunner, parseBlkidExport } from '@appliance/common';
import type { ProbeResult } from '../core/types.ts';

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Probes one node with `blkid -p -o export` (a low-level, read-only probe that bypasses the blkid
 * cache). Exit 2 means "no signature"; any other failure or a timeout is a failed probe.
 */
export async function probeNode(runner: CommandRunner, device: string): Promise<ProbeResult> {
  const result = await runner.run('blkid', ['-p', '-o', 'export', device], {
    timeoutMs: PROBE_TIMEOUT_MS,
    env: { LC_ALL: 'C' },
  });
  const empty = { device, type: null, label: null, labelFatboot: null, uuid: null };
  if (result.timedOut) return { ...empty, failed: true };
  if (result.exitCode === 2) return { ...empty, failed: false };
  if (result.exitCode !== 0) return { ...empty, failed: true };
  const facts = parseBlkidExport(result.stdout);
  return {
    device,
    failed: false,
    type: facts.filesystem,
    label: facts.label,
    labelFatboot: facts.labelFatboot,
    uuid: facts.fsUuid,
  };
}

/** Probes the disk and every partition in parallel. */
export function probeDisk(
  runner: CommandRunner,
  disk: { device: string; partitions: readonly { device: string }[] },
): Promise<ProbeResult[]> {
  return Promise.all([disk.device, ...disk.partitions.map((p) => p.device)].map((d) => probeNode(runner, d)));
}
