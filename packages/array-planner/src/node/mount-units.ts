import fs from 'node:fs/promises';
import path from 'node:path';
import { type CommandRunner, expectSuccess, isAppError, writeFileAtomic } from '@appliance/common';
import { GENERATED_HEADER, type RenderedMountUnits } from '../core/mount-units.ts';

export const DEFAULT_UNIT_DIR = '/etc/systemd/system';
/** Exists only while systemd runs as the system manager (`sd_booted()`). */
export const SYSTEMD_RUN_DIR = '/run/systemd/system';

export interface MountUnitDeps {
  runner: CommandRunner;
  /** Where the units go. Default `/etc/systemd/system`. */
  unitDir?: string;
  /** The "systemd is running" marker directory. Default `/run/systemd/system`. */
  systemdRunDir?: string;
  /** One line per notable event (systemctl skipped, undo problems). */
  log?: (message: string, fields?: Record<string, unknown>) => void;
  /** Called before each step with its name (`write <file>`, `systemctl enable`, `systemctl daemon-reload`). */
  onStep?: (step: string) => void;
}

export interface InstalledMountUnits {
  unitDir: string;
  /** Absolute paths of the files written, in write order. */
  files: string[];
  /** Directories created for the drop-ins (removed again on undo when empty). */
  createdDirs: string[];
  units: string[];
  /** Whether `systemctl daemon-reload` ran. */
  reloaded: boolean;
  /** Whether `systemctl enable` ran (false when systemd is not running or systemctl is missing). */
  enabled: boolean;
}

/** A failed step of the installation (after its own undo); `step` names it for `details.step`. */
export class MountUnitStepError extends Error {
  readonly step: string;
  constructor(step: string, cause: unknown) {
    super(`${step}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MountUnitStepError';
    this.step = step;
  }
}

/**
 * Writes the rendered units atomically into the unit directory (a file there that the appliance
 * did not generate is never replaced), then `systemctl enable --no-reload <units>` and one
 * `systemctl daemon-reload` when systemd is running; otherwise logs that the units are written but
 * not enabled.
 * A failure removes what this call wrote (and disables what it enabled), then throws
 * `MountUnitStepError`.
 */
export async function installMountUnits(
  rendered: RenderedMountUnits,
  deps: MountUnitDeps,
): Promise<InstalledMountUnits> {
  const unitDir = deps.unitDir ?? DEFAULT_UNIT_DIR;
  const installed: InstalledMountUnits = {
    unitDir,
    files: [],
    createdDirs: [],
    units: [...rendered.units],
    reloaded: false,
    enabled: false,
  };
  let step = 'mount units';
  const begin = (s: string) => {
    step = s;
    deps.onStep?.(s);
  };
  try {
    for (const f of rendered.files) {
      const file = path.join(unitDir, f.path);
      begin(`write ${file}`);
      await assertOwnOrAbsent(file);
      const dir = path.dirname(file);
      if (dir !== unitDir && !(await exists(dir))) {
        await fs.mkdir(dir, { mode: 0o755 });
        installed.createdDirs.push(dir);
      }
      await writeFileAtomic(file, f.content, { mode: 0o644 });
      installed.files.push(file);
    }

    const systemctl = await systemdState(deps);
    if (systemctl !== 'running') {
      deps.log?.(
        `${systemctl === 'not_running' ? `systemd is not running (no ${deps.systemdRunDir ?? SYSTEMD_RUN_DIR})` : 'systemctl is not installed'}: wrote ${installed.files.length} mount unit files to ${unitDir} but did not reload or enable them; once systemd runs: systemctl daemon-reload && systemctl enable ${installed.units.join(' ')}`,
        { unitDir, units: installed.units },
      );
      return installed;
    }
    // enable first without its own reload, then one reload picks up the files and the links
    begin('systemctl enable');
    installed.enabled = true; // a failed enable may have created some links: undo disables them all
    expectSuccess(
      await deps.runner.run('systemctl', ['enable', '--no-reload', ...installed.units], {
        timeoutMs: 60_000,
      }),
    );
    begin('systemctl daemon-reload');
    installed.reloaded = true;
    expectSuccess(await deps.runner.run('systemctl', ['daemon-reload'], { timeoutMs: 60_000 }));
    return installed;
  } catch (err) {
    await removeMountUnits(installed, deps);
    throw new MountUnitStepError(step, err);
  }
}

/** Undo of `installMountUnits` (best effort: problems are logged, never thrown). */
export async function removeMountUnits(installed: InstalledMountUnits, deps: MountUnitDeps): Promise<void> {
  const note = (what: string, err: unknown) =>
    deps.log?.(`mount unit undo: ${what} failed`, {
      error: err instanceof Error ? err.message : String(err),
    });
  if (installed.enabled && installed.units.length > 0) {
    const r = await deps.runner
      .run('systemctl', ['disable', '--no-reload', ...installed.units], { timeoutMs: 60_000 })
      .catch((e: unknown) => e);
    if (r instanceof Error || (r as { exitCode: number }).exitCode !== 0) note('systemctl disable', r);
  }
  for (const file of [...installed.files].reverse())
    await fs.rm(file, { force: true }).catch((e) => note(`rm ${file}`, e));
  for (const dir of [...installed.createdDirs].reverse())
    await fs.rmdir(dir).catch((e) => note(`rmdir ${dir}`, e));
  if (installed.reloaded) {
    const r = await deps.runner
      .run('systemctl', ['daemon-reload'], { timeoutMs: 60_000 })
      .catch((e: unknown) => e);
    if (r instanceof Error || (r as { exitCode: number }).exitCode !== 0) note('systemctl daemon-reload', r);
  }
}

async function systemdState(deps: MountUnitDeps): Promise<'running' | 'not_running' | 'no_systemctl'> {
  if (!(await exists(deps.systemdRunDir ?? SYSTEMD_RUN_DIR))) return 'not_running';
  try {
    const r = await deps.runner.run('systemctl', ['--version'], { timeoutMs: 10_000 });
    return r.exitCode === 0 ? 'running' : 'no_systemctl';
  } catch (err) {
    if (isAppError(err) && err.code === 'not_configured') return 'no_systemctl';
    throw err;
  }
}

/** An existing file must carry the appliance's header (an administrator's own unit is never replaced). */
async function assertOwnOrAbsent(file: string): Promise<void> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!text.startsWith(GENERATED_HEADER))
    throw new Error(
      `${file} exists and was not generated by the appliance: move it away, then send the request again`,
    );
}

const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );

/**
 * Moves the installed units from one rendering to another (a disk job's switch, or its recovery:
 * both render from the slot rows): the units only the old set has are disabled and their files
 * removed (only files the appliance generated), then the new set is installed as
 * `installMountUnits` does; returns what it installed and the files it removed. A failure throws
 * `MountUnitStepError`; the caller installs the old rendering again to undo.
 */
export async function replaceMountUnits(
  previous: RenderedMountUnits,
  next: RenderedMountUnits,
  deps: MountUnitDeps,
): Promise<InstalledMountUnits & { removed: string[] }> {
  const unitDir = deps.unitDir ?? DEFAULT_UNIT_DIR;
  const staleUnits = previous.units.filter((u) => !next.units.includes(u));
  const keep = new Set(next.files.map((f) => f.path));
  const staleFiles = previous.files.filter((f) => !keep.has(f.path)).map((f) => path.join(unitDir, f.path));
  if (staleUnits.length > 0 && (await systemdState(deps)) === 'running') {
    deps.onStep?.('systemctl disable');
    expectSuccess(
      await deps.runner.run('systemctl', ['disable', '--no-reload', ...staleUnits], { timeoutMs: 60_000 }),
    );
  }
  const removed: string[] = [];
  for (const file of staleFiles) {
    deps.onStep?.(`rm ${file}`);
    const text = await fs.readFile(file, 'utf8').catch(() => null);
    if (text === null || !text.startsWith(GENERATED_HEADER)) continue;
    await fs.rm(file, { force: true });
    removed.push(file);
    if (path.dirname(file) !== unitDir) await fs.rmdir(path.dirname(file)).catch(() => undefined); // an emptied drop-in directory
  }
  return { ...(await installMountUnits(next, deps)), removed };
}
