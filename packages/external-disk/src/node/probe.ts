import { type BlkidProbeResult, type CommandRunner, probeWithBlkid } from '@appliance/common';
import type { ProbeResult } from '../core/types.ts';

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Probes the disk and every partition directly (07 §6.5 step 2) with the inventory's `blkid -p`
 * prober (one batched run; a low-level, read-only probe that bypasses the blkid cache). The verdicts
 * are the inventory's: no signature is a blank node, while an error blkid reports (a refused open,
 * ambivalent signatures) or a timeout is a failed probe — an unreadable node never looks blank.
 */
export async function probeDisk(
  runner: CommandRunner,
  disk: { device: string; partitions: readonly { device: string }[] },
): Promise<ProbeResult[]> {
  const devices = [disk.device, ...disk.partitions.map((p) => p.device)];
  const results = await probeWithBlkid(devices, { runner, concurrency: 1, timeoutMs: PROBE_TIMEOUT_MS });
  return devices.map((device) => toProbeResult(device, results.get(device) ?? 'failed'));
}

function toProbeResult(device: string, result: BlkidProbeResult): ProbeResult {
  if (result === 'failed')
    return { device, failed: true, type: null, label: null, labelFatboot: null, uuid: null };
  return {
    device,
    failed: false,
    type: result.filesystem,
    label: result.label,
    labelFatboot: result.labelFatboot,
    uuid: result.fsUuid,
  };
}
