/**
 * The ports of the share operations (issue 33): what the server (or another daemon) supplies to
 * create, update and delete shares, replace grants, keep smb.conf in step and delete share data.
 * The server implements them over its SQLite database (features/shares/deps.ts).
 */
import type { HostPaths } from '@appliance/common';
import type { BranchDisk } from '../access/branches.ts';
import type { ShareEnvironment } from '../access/core/share-definitions.ts';
import type { PermissionStore } from '../access/core/permissions.ts';
import type { AccessSnapshot } from '../access/core/effective-access.ts';
import type { ShareDefinition } from '../access/model.ts';

/** One audit row: the operation, its target, details (the actor is the caller's, bound by the port). */
export interface ShareAuditEntry {
  operation: string;
  target: string;
  details?: Record<string, unknown>;
  outcome?: 'ok' | 'failed' | 'partial';
}

/** The share rows as one transaction sees them (reads and writes commit together). */
export interface ShareStore {
  find(name: string): ShareDefinition | undefined;
  list(): ShareDefinition[];
  /** What the create/update checks need, and the array slots for the branch directories. */
  environment(): ShareEnvironment & { disks: BranchDisk[] };
  insert(share: ShareDefinition): void;
  update(share: ShareDefinition): void;
  /** Deletes a share's grants and its row. */
  delete(name: string): void;
  permissions: PermissionStore;
  /** Everything the Samba rendering and the access view read. */
  snapshot(): AccessSnapshot;
}

/** A write transaction: the store plus the audit row of the change. */
export interface ShareTx extends ShareStore {
  /** Records the audit row; returns its id (the row a failed regeneration marks `partial`). */
  audit(entry: ShareAuditEntry): number;
}

/** What the smb.conf follow-up of a committed change needs. */
export interface SambaSync {
  /** Regenerates smb.conf (coalesced); rejects with `smb_regeneration_failed` when testparm refuses it. */
  regenerate(): Promise<void>;
  /** Marks the change's audit row `partial` (the change stays saved, smb.conf is the old one). */
  markPartial(auditId: number): Promise<void>;
  log(message: string, fields?: Record<string, unknown>): void;
}

export interface ShareOperationPorts {
  paths: HostPaths;
  /** The current time, ISO 8601. */
  now(): string;
  /** Reads outside a write (the checks before the directory work). */
  read: ShareStore;
  /**
   * Runs `fn` as one write transaction; `afterCommit` starts right after its COMMIT with `fn`'s
   * result, and the promise settles once both are done (rejecting with `afterCommit`'s error).
   */
  write<R>(fn: (tx: ShareTx) => R, afterCommit: (result: R) => Promise<void>): Promise<R>;
  /** Runs definition changes one at a time (the directory work happens outside the write). */
  serialize<T>(fn: () => Promise<T>): Promise<T>;
  /** Whether a data delete of this share runs now. */
  dataDeleteRunning(name: string): boolean;
  samba: SambaSync;
}
