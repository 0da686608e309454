/**
 * The disk jobs of issue 21 as plain decisions: which phases each kind runs (and where a cancel
 * is safe), what the job records about itself before it writes anything, where the new disk goes,
 * which slot row it becomes, how a check's findings end the job, and — after a restart — which
 * disk the slot is on and what to tell the administrator. No I/O: the server's job code and the
 * adapters in `../node/` carry these out.
 */
import type { ArrayFilesystem, ArraySlot, DiskInventoryEntry, DiskUpgradePlan } from './types.ts';

export type DiskJobKind = 'upgrade_data' | 'upgrade_parity' | 'replace_data' | 'replace_parity';

export type DiskJobPhase =
  | 'check'
  | 'presync'
  | 'freeze'
  | 'format'
  | 'copy'
  | 'rebuild'
  | 'verify'
  | 'permissions'
  | 'switch'
  | 'sync';

export interface PhaseSpec {
  name: DiskJobPhase;
  /** Whether `DELETE /jobs/:id` may stop the job here (the slot then keeps its old disk). */
  cancellable: boolean;
}

const p = (name: DiskJobPhase, cancellable = false): PhaseSpec => ({ name, cancellable });

/**
 * The phases in order. Cancellable: the syncs before, the copy, the rebuild and the checks (the
 * slot keeps its old disk), and the sync after the switch (the slot is on the new disk by then).
 * Never the format, the freeze or the switch.
 */
export const DISK_JOB_PHASES: Record<DiskJobKind, readonly PhaseSpec[]> = {
  upgrade_data: [
    p('check'),
    p('presync', true),
    p('freeze'),
    p('format'),
    p('copy', true),
    p('verify', true),
    p('switch'),
    p('sync', true),
  ],
  upgrade_parity: [
    p('check'),
    p('presync', true),
    p('format'),
    p('rebuild', true),
    p('verify', true),
    p('switch'),
  ],
  replace_data: [
    p('check'),
    p('format'),
    p('rebuild', true),
    p('verify', true),
    p('permissions'),
    p('switch'),
    p('sync', true),
  ],
  replace_parity: [p('check'), p('format'), p('rebuild', true), p('verify', true), p('switch')],
};

export function phaseSpec(kind: DiskJobKind, name: DiskJobPhase): PhaseSpec {
  const spec = DISK_JOB_PHASES[kind].find((x) => x.name === name);
  if (!spec) throw new Error(`a ${kind} job has no phase ${name}`);
  return spec;
}

/** The job's type as the API names it (202 body `type`). */
export const DISK_JOB_TYPES: Record<DiskJobKind, string> = {
  upgrade_data: 'disk_upgrade_data',
  upgrade_parity: 'disk_upgrade_parity',
  replace_data: 'disk_replace_data',
  replace_parity: 'disk_replace_parity',
};

/** What a disk job was asked to do, fixed before it writes anything (the job row's `params`). */
export interface DiskJobParams {
  kind: DiskJobKind;
  role: 'data' | 'parity';
  roleIndex: number;
  /** The slot's mountpoint when the job started. */
  mountpoint: string;
  /** Where the new disk ends up: the slot's mountpoint, or the plan's `newMountpoint` (parity upgrade). */
  targetMountpoint: string;
  /** The replacement's kernel path when the request was accepted (informational). */
  device: string;
  /** Its by-id name, to find it again if its kernel name changed. */
  byIdName: string | null;
  filesystem: ArrayFilesystem;
  /** mkfs label: the target mountpoint's last component (`disk2`, `parity2`). */
  label: string;
  previousDevice: string;
  previousFsUuid: string;
  /**
   * The filesystem UUID the new disk is formatted with (chosen up front): after a restart it tells
   * the two disks apart without guessing.
   */
  newFsUuid: string;
}

export function diskJobParams(input: {
  kind: DiskJobKind;
  slot: ArraySlot;
  plan: DiskUpgradePlan;
  byIdName: string | null;
  newFsUuid: string;
}): DiskJobParams {
  const { kind, slot, plan } = input;
  const targetMountpoint = plan.newMountpoint ?? slot.mountpoint;
  return {
    kind,
    role: plan.role,
    roleIndex: slot.roleIndex,
    mountpoint: slot.mountpoint,
    targetMountpoint,
    device: plan.replacementDevice,
    byIdName: input.byIdName,
    filesystem: plan.filesystem,
    label: targetMountpoint.slice(targetMountpoint.lastIndexOf('/') + 1),
    previousDevice: plan.previousDevice,
    previousFsUuid: slot.fsUuid,
    newFsUuid: input.newFsUuid,
  };
}

/** Where a data upgrade mounts the new disk for the copy: outside the pool, one per slot. */
export const stagingMountpoint = (mountpoint: string): string =>
  `/mnt/.staging/${mountpoint.slice(mountpoint.lastIndexOf('/') + 1)}`;

/** SnapRAID's name of a slot: `d<N>`, `parity`, `2-parity`. */
export const snapraidDiskName = (role: 'data' | 'parity', roleIndex: number): string =>
  role === 'data' ? `d${roleIndex}` : roleIndex === 1 ? 'parity' : `${roleIndex}-parity`;

/** The slot's row in `rows` (by role and level: a parity upgrade moves its mountpoint). */
export const jobSlot = (rows: readonly ArraySlot[], params: DiskJobParams): ArraySlot | undefined =>
  rows.find((r) => r.role === params.role && r.roleIndex === params.roleIndex);

/**
 * The members the job's own SnapRAID configuration names: the array as it is, with the slot at
 * the staging path (data upgrade: check the copy) or at the new mountpoint (parity upgrade:
 * rebuild and check there while the array keeps its old parity). Null: the job uses the array's
 * own configuration (replace: the new disk is already at the slot's mountpoint).
 */
export function jobConfMembers(rows: readonly ArraySlot[], params: DiskJobParams): ArraySlot[] | null {
  const at =
    params.kind === 'upgrade_data'
      ? stagingMountpoint(params.mountpoint)
      : params.kind === 'upgrade_parity'
        ? params.targetMountpoint
        : null;
  if (at === null) return null;
  return rows.map((r) =>
    r.role === params.role && r.roleIndex === params.roleIndex ? { ...r, mountpoint: at } : r,
  );
}

/** The slot's row once the switch is recorded: the new disk's identity at the target mountpoint. */
export function switchedRow(slot: ArraySlot, params: DiskJobParams, entry: DiskInventoryEntry): ArraySlot {
  return {
    ...slot,
    device: entry.device,
    filesystem: params.filesystem,
    fsUuid: params.newFsUuid,
    wwn: entry.wwn,
    serial: entry.serial,
    byIdName: entry.byIdName,
    weakIdentity: entry.weakIdentity,
    sizeBytes: entry.sizeBytes,
    mountpoint: params.targetMountpoint,
  };
}

/** A check's findings as the job needs them (from @appliance/parity's fix/check collectors). */
export interface CheckFindings {
  /** SnapRAID's error count (data, I/O and file errors). */
  errors: number;
  /** Files with errors, `<disk>/<path>`. */
  files: string[];
  /** Files `fix`/`check` could not recover, `<disk>/<path>`. */
  unrecoverable: string[];
}

export type CheckVerdict = { ok: true } | { ok: false; code: string; message: string; files: string[] };

/**
 * What the verify phase's check means. A copy (data upgrade) or a new parity must check clean. A
 * rebuilt data disk may miss exactly the files `fix` could not recover (listed in the result);
 * an error in any other file stops the job before the disk is recorded.
 */
export function judgeCheck(
  params: DiskJobParams,
  check: CheckFindings,
  fixUnrecoverable: readonly string[] = [],
): CheckVerdict {
  if (params.kind === 'replace_data') {
    const expected = new Set(fixUnrecoverable);
    const other = check.files.filter((f) => !expected.has(f));
    const unattributed = check.errors > 0 && check.files.length === 0;
    if (other.length === 0 && !unattributed) return { ok: true };
    return {
      ok: false,
      code: 'rebuild_check_failed',
      message: `"snapraid check" found errors in ${other.length || check.errors} rebuilt file(s) of ${params.mountpoint}${other.length ? ` (${other.slice(0, 5).join(', ')}${other.length > 5 ? ', …' : ''})` : ''}; the new disk was not recorded. Read the job's output, check the other disks' health, and run the replace again.`,
      files: other,
    };
  }
  if (check.errors === 0 && check.unrecoverable.length === 0) return { ok: true };
  const files = check.files.length > 0 ? check.files : check.unrecoverable;
  const list = files.length ? ` (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''})` : '';
  if (params.kind === 'upgrade_data')
    return {
      ok: false,
      code: 'copy_differs',
      message: `The copy on ${params.device} does not match SnapRAID's hashes in ${check.errors} place(s)${list}; ${params.mountpoint} stays on ${params.previousDevice}, unchanged. Check the new disk's health and run the upgrade again.`,
      files,
    };
  return {
    ok: false,
    code: 'parity_check_failed',
    message: `"snapraid check" against the new parity on ${params.targetMountpoint} found ${check.errors} error(s)${list}; the array keeps ${params.kind === 'upgrade_parity' ? `its parity on ${params.mountpoint}` : 'no parity on this slot'}. Files changed since the last sync make the check fail: run the job again once the array is quiet.`,
    files,
  };
}

/**
 * After a restart, or when the job stops before its switch: which disk the slot is on. The slot's
 * row is the single point of truth — the switch records it in one transaction — so the slot is on
 * the new disk exactly when its row carries the new filesystem UUID.
 */
export type SlotSide = 'old' | 'new';

export const slotSide = (slot: ArraySlot | undefined, params: DiskJobParams): SlotSide =>
  slot?.fsUuid === params.newFsUuid ? 'new' : 'old';

export interface Settlement {
  side: SlotSide;
  /** The disk that must be mounted (read-write) at `at` when it is attached. */
  keep: { fsUuid: string; at: string };
  /** The other disk: unmounted from every path the job uses. */
  drop: { fsUuid: string; from: string[] };
}

/** The mounts that put the slot wholly on one side (used by recovery, cancel and failure alike). */
export function settlement(params: DiskJobParams, side: SlotSide): Settlement {
  const paths = [
    ...new Set([
      params.mountpoint,
      params.targetMountpoint,
      ...(params.kind === 'upgrade_data' ? [stagingMountpoint(params.mountpoint)] : []),
    ]),
  ];
  return side === 'new'
    ? {
        side,
        keep: { fsUuid: params.newFsUuid, at: params.targetMountpoint },
        drop: { fsUuid: params.previousFsUuid, from: paths },
      }
    : {
        side,
        keep: { fsUuid: params.previousFsUuid, at: params.mountpoint },
        drop: { fsUuid: params.newFsUuid, from: paths },
      };
}

const WHAT: Record<DiskJobKind, string> = {
  upgrade_data: 'upgrade',
  upgrade_parity: 'upgrade',
  replace_data: 'replace',
  replace_parity: 'replace',
};

/** What the administrator reads on an interrupted disk job (its `error.message`). */
export function interruptedMessage(params: DiskJobParams, side: SlotSide, phase: string | null): string {
  const at = phase ? ` (phase "${phase}")` : '';
  const op = WHAT[params.kind];
  const start = `The service stopped during the disk ${op} of ${params.mountpoint}${at}.`;
  if (side === 'new') {
    const after =
      params.kind === 'upgrade_parity' || params.kind === 'replace_parity'
        ? 'Nothing is left to do.'
        : 'Run a parity sync (appliance array sync) to finish.';
    const old =
      params.kind === 'upgrade_data' || params.kind === 'upgrade_parity'
        ? ` The old disk ${params.previousDevice} is unmounted and unchanged; keep it until you are satisfied.`
        : '';
    return `${start} Its switch had completed: ${params.targetMountpoint} is on ${params.device}.${old} ${after}`;
  }
  if (params.kind === 'replace_data' || params.kind === 'replace_parity')
    return `${start} ${params.mountpoint} still records its failed disk ${params.previousDevice}; ${params.device} was unmounted and is not part of the array. Send the same replace request again: it starts over.`;
  return `${start} ${params.mountpoint} stays on its old disk ${params.previousDevice}, which is mounted read-write again and was not changed; ${params.device} was unmounted and is not part of the array. Send the same upgrade request again: it starts over.`;
}

/** The result and message of a job that stopped before its switch (cancel or failure). */
export function keptOldMessage(params: DiskJobParams): string {
  return params.kind === 'replace_data' || params.kind === 'replace_parity'
    ? `${params.mountpoint} still records its failed disk; ${params.device} was unmounted.`
    : `${params.mountpoint} stays on ${params.previousDevice}, unchanged; ${params.device} was unmounted.`;
}
