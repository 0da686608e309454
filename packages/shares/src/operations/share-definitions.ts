/**
 * Share definitions (08 §6) as operations: create, update and delete, one at a time. The checks
 * run before the branch directories are made and again inside the write (the state may have moved
 * meanwhile); every change is audited and followed by the smb.conf regeneration.
 */
import { shareBranches } from '../access/branches.ts';
import {
  planShareCreate,
  planShareUpdate,
  type ShareCreateInput,
  type ShareUpdateInput,
} from '../access/core/share-definitions.ts';
import { shareBusy, shareNotFound } from '../access/errors.ts';
import type { ShareDefinition } from '../access/model.ts';
import { ensureBranchDirectories } from '../access/node/branch-dirs.ts';
import type { ShareOperationPorts } from './ports.ts';
import { writeThenRegenerate } from './regenerate.ts';

const changeDetails = (s: ShareDefinition) => ({
  cacheMode: s.cacheMode,
  createPolicy: s.createPolicy,
  smb: s.smb,
});

/** Creates a share (closed until access is granted) and its branch directories. */
export function createShare(ports: ShareOperationPorts, input: ShareCreateInput): Promise<ShareDefinition> {
  return ports.serialize(async () => {
    const now = ports.now();
    const env = ports.read.environment();
    const share = planShareCreate(input, env, now);
    await ensureBranchDirectories(ports.paths, shareBranches(share.name, share.cacheMode, env.disks));
    await writeThenRegenerate(ports, (tx) => {
      planShareCreate(input, tx.environment(), now);
      tx.insert(share);
      tx.audit({ operation: 'share.create', target: share.name, details: changeDetails(share) });
    });
    return share;
  });
}

/** Replaces a share's cache mode, create policy and SMB settings. */
export function updateShare(
  ports: ShareOperationPorts,
  name: string,
  input: ShareUpdateInput,
): Promise<ShareDefinition> {
  return ports.serialize(async () => {
    const now = ports.now();
    const existing = ports.read.find(name);
    if (!existing) throw shareNotFound(name);
    const env = ports.read.environment();
    const next = planShareUpdate(existing, input, env, now);
    await ensureBranchDirectories(ports.paths, shareBranches(next.name, next.cacheMode, env.disks));
    await writeThenRegenerate(ports, (tx) => {
      const current = tx.find(name);
      if (!current) throw shareNotFound(name);
      planShareUpdate(current, input, tx.environment(), now);
      tx.update(next);
      tx.audit({ operation: 'share.update', target: next.name, details: changeDetails(next) });
    });
    return next;
  });
}

/** Deletes a share definition and its grants; its files stay on the disks. */
export function deleteShare(ports: ShareOperationPorts, name: string): Promise<void> {
  return ports.serialize(async () => {
    if (!ports.read.find(name)) throw shareNotFound(name);
    if (ports.dataDeleteRunning(name)) throw shareBusy(name);
    await writeThenRegenerate(ports, (tx) => {
      if (!tx.find(name)) throw shareNotFound(name);
      if (ports.dataDeleteRunning(name)) throw shareBusy(name);
      tx.delete(name);
      tx.audit({ operation: 'share.delete', target: name });
    });
  });
}

/** One share (exact name), or `share_not_found`. */
export function getShare(ports: Pick<ShareOperationPorts, 'read'>, name: string): ShareDefinition {
  const share = ports.read.find(name);
  if (!share) throw shareNotFound(name);
  return share;
}
