/**
 * A committed change that affects smb.conf (06 §5.3, §5.4): the regeneration starts right after the
 * change's COMMIT; when testparm refuses the new file the change stays saved, its audit row becomes
 * `partial`, and `smb_regeneration_failed` goes to the caller.
 */
import { isRefusal } from '@appliance/common';
import type { SambaSync, ShareOperationPorts, ShareTx } from './ports.ts';

/** Regenerates smb.conf after the change audited as `auditId`. */
export async function regenerateAfter(samba: SambaSync, auditId: number): Promise<void> {
  try {
    await samba.regenerate();
  } catch (err) {
    if (isRefusal(err) && err.code === 'smb_regeneration_failed') {
      await samba
        .markPartial(auditId)
        .catch((e: unknown) => samba.log('marking the audit row partial failed', { error: String(e) }));
    }
    throw err;
  }
}

/** Commits `fn` (which records its audit row), then regenerates smb.conf. */
export async function writeThenRegenerate<T>(
  ports: Pick<ShareOperationPorts, 'write' | 'samba'>,
  fn: (tx: ShareTx) => T,
): Promise<T> {
  const { value } = await ports.write(
    (tx) => {
      let auditId = 0;
      // the store as given, with its audit recording the id of the change's row
      const audited: ShareTx = Object.assign(Object.create(tx) as ShareTx, {
        audit: (entry: Parameters<ShareTx['audit']>[0]) => {
          auditId = tx.audit(entry);
          return auditId;
        },
      });
      return { value: fn(audited), auditId };
    },
    ({ auditId }) => regenerateAfter(ports.samba, auditId),
  );
  return value;
}
