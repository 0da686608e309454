/**
 * The SMART probe: `smartctl --json -a -n standby <device>` through the command runner. `-n standby`
 * is always given: a disk that sleeps is not woken (smartctl exits 2 with "Device is in STANDBY
 * mode" and reads nothing), as smartd does.
 */
import type { CommandRunner } from '@appliance/common';
import { parseSmartctl, type SmartReading } from '../core/smart.ts';

export interface SmartProbeOptions {
  /** `-d TYPE` (`sat`, `nvme`, …) for a bridge smartctl does not detect by itself. */
  deviceType?: string;
  /** Default 30 s (a disk busy with a self-test can be slow to answer). */
  timeoutMs?: number;
}

/** The arguments of one probe (exported: the benchmark checks that none omits `-n standby`). */
export function smartctlArgs(device: string, options: SmartProbeOptions = {}): string[] {
  return ['--json', '-a', '-n', 'standby', ...(options.deviceType ? ['-d', options.deviceType] : []), device];
}

/**
 * Reads a disk's SMART data. A missing smartctl is the runner's `501 not_configured` (install
 * smartmontools); output that is not JSON is a reading in state `error`.
 */
export async function readSmart(
  runner: CommandRunner,
  device: string,
  options: SmartProbeOptions = {},
): Promise<SmartReading> {
  const r = await runner.run('smartctl', smartctlArgs(device, options), {
    timeoutMs: options.timeoutMs ?? 30_000,
  });
  if (r.timedOut)
    return { ...parseSmartctl(null), state: 'error', detail: 'smartctl did not answer in time' };
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    const why = (r.stderr || r.stdout).trim().split('\n')[0] ?? '';
    return { ...parseSmartctl(null), state: 'error', detail: `smartctl exited ${r.exitCode}: ${why}`.trim() };
  }
  return parseSmartctl(json, r.exitCode);
}
