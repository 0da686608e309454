/**
 * What changes in the running service once an import has committed (08 §14): the import replaced
 * the database and the files under the service's feet, so the service adopts what they now say.
 * Each step is a port the service wires; they run in this order, one after the other, and a step
 * that throws ends the sequence with its error (the import itself stays committed).
 */

/** The service's side of an import's aftermath, one port per step. */
export interface AfterImportPorts {
  /** From now on the service seals and checks secrets with this machine key (the archive's). */
  adoptMachineKey(key: Buffer): void | Promise<void>;
  /** The accounts were replaced: whatever the service remembers of the old ones is dropped. */
  resetAccounts(): void | Promise<void>;
  /** smb.conf was swapped in by the import: Samba reloads it (real host, or samba.sandbox). */
  reloadSamba(): void | Promise<void>;
  /** The files the import wrote are what the service wrote (drift watcher). */
  recordGeneratedFiles(): void | Promise<void>;
  /** The watchers' settings may have changed (issue 22): their schedules are read again. */
  rescheduleWatchers(): void | Promise<void>;
}

/** The step names, in the order they run. */
export const AFTER_IMPORT_STEPS = [
  'adoptMachineKey',
  'resetAccounts',
  'reloadSamba',
  'recordGeneratedFiles',
  'rescheduleWatchers',
] as const satisfies readonly (keyof AfterImportPorts)[];

/**
 * Runs the aftermath of a committed import: the machine key is adopted only when the import
 * adopted one (`adoptedKey`, a fresh install that opened the archive's key), every other step
 * always runs.
 */
export async function afterImport(
  ports: AfterImportPorts,
  result: { adoptedKey: Buffer | null },
): Promise<void> {
  if (result.adoptedKey) await ports.adoptMachineKey(result.adoptedKey);
  await ports.resetAccounts();
  await ports.reloadSamba();
  await ports.recordGeneratedFiles();
  await ports.rescheduleWatchers();
}
