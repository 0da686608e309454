/**
 * The data disks' metadata SnapRAID does not keep (owners, modes, ACLs, extended attributes),
 * saved after every sync so a rebuild can put it back (`saveMetadata`; docs/decisions/disks.md,
 * "What SnapRAID does not rebuild").
 */
import { missingTools } from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import { snapraidDiskName } from '../core/disk-job.ts';
import { metadataFiles, saveMetadata } from '../node/metadata.ts';
import { isMountedAt } from '../node/pool-state.ts';
import type { DiskJobPorts } from '../ports.ts';

export interface MetadataOutcome {
  /** Disks whose metadata was saved, with the number of entries. */
  saved: Array<{ disk: string; mountpoint: string; entries: number }>;
  /** Disks that were not saved, and why (a missing tool, a failed walk). */
  skipped: Array<{ disk: string; mountpoint: string; reason: string }>;
}

/** Saves the metadata of every mounted data disk; resolves null when the job was cancelled. */
export async function saveArrayMetadata(
  ports: Pick<DiskJobPorts, 'slots' | 'runner' | 'paths' | 'log'>,
  job: JobHandle,
): Promise<MetadataOutcome | null> {
  const out: MetadataOutcome = { saved: [], skipped: [] };
  const data = ports.slots.listSlots().filter((s) => s.role === 'data');
  const missing = await missingTools(ports.runner, ['getfacl', 'getfattr']);
  for (const slot of data) {
    const disk = snapraidDiskName('data', slot.roleIndex);
    const skip = (reason: string) => out.skipped.push({ disk, mountpoint: slot.mountpoint, reason });
    if (missing.length > 0) {
      skip(`${missing.join(', ')} not installed (Debian packages acl, attr)`);
      continue;
    }
    if (!(await isMountedAt(ports.paths, slot.mountpoint))) {
      skip('not mounted');
      continue;
    }
    try {
      const r = await saveMetadata(ports.runner, {
        dir: ports.paths.real(slot.mountpoint),
        files: metadataFiles(ports.paths, disk),
        signal: job.signal,
      });
      out.saved.push({ disk, mountpoint: slot.mountpoint, entries: r.entries });
    } catch (err) {
      if (job.signal.aborted) return null;
      ports.log.warn('disk metadata not saved', { disk, error: String(err) });
      skip(err instanceof Error ? err.message : String(err));
    }
  }
  if (out.skipped.length > 0)
    job.output(`metadata not saved for ${out.skipped.map((s) => `${s.disk} (${s.reason})`).join(', ')}`);
  return out;
}
