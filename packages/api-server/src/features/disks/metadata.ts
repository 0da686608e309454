/**
 * The data disks' metadata SnapRAID does not keep (owners, modes, ACLs, extended attributes),
 * saved after every sync so a rebuild can put it back (@appliance/array-planner `saveMetadata`;
 * docs/decisions/disks.md, "What SnapRAID does not rebuild").
 */
import { isMountedAt, metadataFiles, saveMetadata, snapraidDiskName } from '@appliance/array-planner';
import { missingTools } from '@appliance/common';
import type { AppContext } from '../../context.ts';
import type { JobHandle } from '@appliance/jobs';
import { listSlots } from './store.ts';

export interface MetadataOutcome {
  /** Disks whose metadata was saved, with the number of entries. */
  saved: Array<{ disk: string; mountpoint: string; entries: number }>;
  /** Disks that were not saved, and why (a missing tool, a failed walk). */
  skipped: Array<{ disk: string; mountpoint: string; reason: string }>;
}

/** Saves the metadata of every mounted data disk; resolves null when the job was cancelled. */
export async function saveArrayMetadata(ctx: AppContext, job: JobHandle): Promise<MetadataOutcome | null> {
  const out: MetadataOutcome = { saved: [], skipped: [] };
  const data = listSlots(ctx.db).filter((s) => s.role === 'data');
  const missing = await missingTools(ctx.runner, ['getfacl', 'getfattr']);
  for (const slot of data) {
    const disk = snapraidDiskName('data', slot.roleIndex);
    const skip = (reason: string) => out.skipped.push({ disk, mountpoint: slot.mountpoint, reason });
    if (missing.length > 0) {
      skip(`${missing.join(', ')} not installed (Debian packages acl, attr)`);
      continue;
    }
    if (!(await isMountedAt(ctx.paths, slot.mountpoint))) {
      skip('not mounted');
      continue;
    }
    try {
      const r = await saveMetadata(ctx.runner, {
        dir: ctx.paths.real(slot.mountpoint),
        files: metadataFiles(ctx.paths, disk),
        signal: job.signal,
      });
      out.saved.push({ disk, mountpoint: slot.mountpoint, entries: r.entries });
    } catch (err) {
      if (job.signal.aborted) return null;
      ctx.logger.warn('disk metadata not saved', { disk, error: String(err) });
      skip(err instanceof Error ? err.message : String(err));
    }
  }
  if (out.skipped.length > 0)
    job.output(`metadata not saved for ${out.skipped.map((s) => `${s.disk} (${s.reason})`).join(', ')}`);
  return out;
}
