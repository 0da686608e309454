import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type CommandResult, type CommandRunner, missingTool } from '@appliance/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MountUnitSlot, escapeUnitPath, renderMountUnits } from '../core/mount-units.ts';
import { MountUnitStepError, installMountUnits } from './mount-units.ts';

const run = promisify(execFile);
const slots: MountUnitSlot[] = [
  {
    role: 'parity',
    roleIndex: 1,
    mountpoint: '/mnt/parity1',
    fsUuid: '0b1c2d3e-aaaa-4bbb-8ccc-123456789abc',
    filesystem: 'xfs',
  },
  {
    role: 'data',
    roleIndex: 1,
    mountpoint: '/mnt/disk1',
    fsUuid: '11111111-2222-4333-8444-555555555555',
    filesystem: 'xfs',
  },
  {
    role: 'data',
    roleIndex: 2,
    mountpoint: '/mnt/disk2',
    fsUuid: 'a0b1c2d3-e4f5-4a6b-8c7d-8e9f0a1b2c3d',
    filesystem: 'ext4',
  },
  {
    role: 'cache',
    roleIndex: 1,
    mountpoint: '/mnt/cache',
    fsUuid: 'deadbeef-0000-4000-8000-000000000001',
    filesystem: 'btrfs',
  },
];
const rendered = renderMountUnits(slots, { pool: { createPolicy: 'mfs', minFreeSpaceMiB: 4096 } });

/** A runner that records commands and answers from `answer` (default: success). */
function fakeRunner(
  answer: (cmd: string, args: readonly string[]) => Partial<CommandResult> | Error = () => ({}),
) {
  const log: string[] = [];
  const runner: CommandRunner = {
    resolve: async (command) => `/usr/bin/${command}`,
    async run(command, args) {
      log.push([command, ...args].join(' '));
      const a = answer(command, args);
      if (a instanceof Error) throw a;
      return { command, args, exitCode: 0, stdout: '', stderr: '', timedOut: false, ...a };
    },
  };
  return { runner, log };
}

const has = (tool: string) =>
  run('sh', ['-c', `command -v ${tool}`]).then(
    () => true,
    () => false,
  );

const tools = {
  escape: await has('systemd-escape'),
  analyze: await has('systemd-analyze'),
  mergerfs: await has('mergerfs'),
};
const isRoot = process.getuid?.() === 0;
/** Outside CI a missing prerequisite skips its case; in CI (`CI=true`) the case runs and fails. */
const need = (ok: boolean) => ok || process.env['CI'] === 'true';

async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true }))
    out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  return out.sort();
}

describe('mount unit adapter', () => {
  let work: string;
  let n = 0;
  const fresh = async () => {
    const d = path.join(work, `units-${++n}`);
    await fs.mkdir(d);
    return d;
  };
  const noSystemd = () => path.join(work, 'no-such-run-dir');

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'mount-units-'));
  });
  afterAll(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  it.runIf(need(tools.escape))('unit names equal systemd-escape --path', async () => {
    const paths = [
      '/mnt/disk1',
      '/mnt/parity2/',
      '/mnt/user',
      '/mnt/a-b c',
      '/.x',
      '/mnt/ü',
      '/dev/disk/by-uuid/0b1c2d3e-aaaa-4bbb-8ccc-123456789abc',
    ];
    const { stdout } = await run('systemd-escape', ['--path', '--suffix=mount', ...paths]);
    expect(paths.map((p) => escapeUnitPath(p, 'mount'))).toEqual(stdout.trim().split(' '));
  });

  it('without systemd running: writes the files atomically (0644), skips systemctl and says so', async () => {
    const dir = await fresh();
    const { runner, log } = fakeRunner();
    const lines: string[] = [];
    const steps: string[] = [];
    const installed = await installMountUnits(rendered, {
      runner,
      unitDir: dir,
      systemdRunDir: noSystemd(),
      log: (m) => lines.push(m),
      onStep: (s) => steps.push(s),
    });
    expect(installed).toMatchObject({ unitDir: dir, reloaded: false, enabled: false, units: rendered.units });
    expect(log).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^systemd is not running .*did not reload or enable them/);
    expect(lines[0]).toContain(`systemctl enable ${rendered.units.join(' ')}`);
    expect(await listTree(dir)).toEqual(
      [
        ...rendered.files.map((f) => f.path),
        ...rendered.files.filter((f) => f.path.includes('/')).map((f) => path.dirname(f.path)),
      ].sort(),
    );
    for (const f of rendered.files) {
      expect(await fs.readFile(path.join(dir, f.path), 'utf8')).toBe(f.content);
      expect((await fs.stat(path.join(dir, f.path))).mode & 0o777).toBe(0o644);
    }
    expect(steps).toEqual(rendered.files.map((f) => `write ${path.join(dir, f.path)}`));
    // rewriting its own files (a rerun of the setup) is fine
    await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: noSystemd() });
  });

  it.runIf(need(tools.analyze))(
    'systemd-analyze verify accepts the units, loads the device drop-ins (systemd is not PID 1 here)',
    async () => {
      const dir = await fresh();
      const { runner } = fakeRunner();
      await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: noSystemd() });
      const mounts = rendered.units.map((u) => path.join(dir, u));
      const ok = await run('systemd-analyze', ['verify', ...mounts]);
      expect(ok.stderr).toBe('');

      // the drop-in directory is the one systemd reads for the device named by What=
      const dropin = rendered.files[1]?.path as string;
      await fs.appendFile(path.join(dir, dropin), 'NoSuchSetting=1\n');
      const warned = await run('systemd-analyze', ['verify', path.join(dir, 'mnt-disk1.mount')]);
      expect(warned.stderr).toContain(`${dropin}:6: Unknown key 'NoSuchSetting'`);

      // and verify does catch a unit whose name does not match Where=
      await fs.copyFile(path.join(dir, 'mnt-disk1.mount'), path.join(dir, 'mnt-disk9.mount'));
      const bad = await run('systemd-analyze', ['verify', path.join(dir, 'mnt-disk9.mount')]).then(
        () => null,
        (e: { stderr: string }) => e.stderr,
      );
      expect(bad).toContain("Where= setting doesn't match unit name");
    },
  );

  it('with systemd running: enable --no-reload the units, then one daemon-reload', async () => {
    const dir = await fresh();
    const { runner, log } = fakeRunner();
    const installed = await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: work });
    expect(installed).toMatchObject({ reloaded: true, enabled: true });
    expect(log).toEqual([
      'systemctl --version',
      `systemctl enable --no-reload ${rendered.units.join(' ')}`,
      'systemctl daemon-reload',
    ]);
  });

  it('systemctl not installed: files written, nothing enabled, logged', async () => {
    const dir = await fresh();
    const { runner } = fakeRunner((cmd) => (cmd === 'systemctl' ? missingTool('systemctl') : {}));
    const lines: string[] = [];
    const installed = await installMountUnits(rendered, {
      runner,
      unitDir: dir,
      systemdRunDir: work,
      log: (m) => lines.push(m),
    });
    expect(installed.enabled).toBe(false);
    expect(lines[0]).toMatch(/^systemctl is not installed/);
  });

  it('a failed enable disables the units and removes every file it wrote; the error names the step', async () => {
    const dir = await fresh();
    const { runner, log } = fakeRunner((_c, args) =>
      args[0] === 'enable' ? { exitCode: 1, stderr: 'Failed to enable unit' } : {},
    );
    const err = await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: work }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(MountUnitStepError);
    expect(err.step).toBe('systemctl enable');
    expect(log.slice(1)).toEqual([
      `systemctl enable --no-reload ${rendered.units.join(' ')}`,
      `systemctl disable --no-reload ${rendered.units.join(' ')}`,
    ]);
    expect(await listTree(dir)).toEqual([]);
  });

  it('a failed daemon-reload undoes the enable and the files, then reloads again', async () => {
    const dir = await fresh();
    let reloads = 0;
    const { runner, log } = fakeRunner((_c, args) =>
      args[0] === 'daemon-reload' && ++reloads === 1 ? { exitCode: 1, stderr: 'Access denied' } : {},
    );
    const err = await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: work }).catch(
      (e) => e,
    );
    expect(err.step).toBe('systemctl daemon-reload');
    expect(log.slice(2)).toEqual([
      'systemctl daemon-reload',
      `systemctl disable --no-reload ${rendered.units.join(' ')}`,
      'systemctl daemon-reload',
    ]);
    expect(await listTree(dir)).toEqual([]);
  });

  it('an unwritable unit directory fails at its first write, with the step', async () => {
    const blocker = path.join(work, 'not-a-directory');
    await fs.writeFile(blocker, '');
    const { runner, log } = fakeRunner();
    const err = await installMountUnits(rendered, {
      runner,
      unitDir: blocker,
      systemdRunDir: work,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(MountUnitStepError);
    expect(err.step).toBe(`write ${path.join(blocker, rendered.files[0]?.path as string)}`);
    expect(log).toEqual([]);
  });

  it.runIf(need(isRoot))('a read-only unit directory (root ignores modes: a ro tmpfs)', async () => {
    const dir = await fresh();
    await run('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]);
    try {
      const { runner } = fakeRunner();
      const err = await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: work }).catch(
        (e) => e,
      );
      expect(err.step).toBe(`write ${path.join(dir, rendered.files[0]?.path as string)}`);
      expect(err.message).toMatch(/EROFS|read-only/);
    } finally {
      await run('umount', [dir]);
    }
  });

  it('a failure part-way removes the files written before it and leaves what was there', async () => {
    const dir = await fresh();
    await fs.mkdir(path.join(dir, 'mnt-disk2.mount')); // rename onto a directory fails
    const { runner } = fakeRunner();
    const err = await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: work }).catch(
      (e) => e,
    );
    expect(err.step).toBe(`write ${path.join(dir, 'mnt-disk2.mount')}`);
    expect(await listTree(dir)).toEqual(['mnt-disk2.mount']);
  });

  it("an administrator's own unit at the same name is never replaced", async () => {
    const dir = await fresh();
    const own = '[Mount]\nWhat=/dev/sdq1\nWhere=/mnt/disk1\n';
    await fs.writeFile(path.join(dir, 'mnt-disk1.mount'), own);
    const { runner } = fakeRunner();
    const err = await installMountUnits(rendered, { runner, unitDir: dir, systemdRunDir: work }).catch(
      (e) => e,
    );
    expect(err.step).toBe(`write ${path.join(dir, 'mnt-disk1.mount')}`);
    expect(err.message).toContain('was not generated by the appliance');
    expect(await fs.readFile(path.join(dir, 'mnt-disk1.mount'), 'utf8')).toBe(own);
    expect(await listTree(dir)).toEqual(['mnt-disk1.mount']);
  });

  it.runIf(need(isRoot && tools.mergerfs))(
    'the pool unit mounts as systemd would run it (mount -t <Type> -o <Options> <What> <Where>)',
    async () => {
      const unit = rendered.files.find((f) => f.path === 'mnt-user.mount')?.content as string;
      const field = (k: string) => unit.match(new RegExp(`^${k}=(.*)$`, 'm'))?.[1] as string;
      const branches = ['a', 'b'].map((b) => path.join(work, 'pool', b));
      const where = path.join(work, 'pool', 'user');
      for (const d of [...branches, where]) await fs.mkdir(d, { recursive: true });
      await run('mount', ['-t', field('Type'), '-o', field('Options'), branches.join(':'), where]);
      try {
        const { stdout } = await run('findmnt', ['-n', '-o', 'FSTYPE,SOURCE', '--mountpoint', where]);
        expect(stdout.trim()).toBe('fuse.mergerfs appliance-pool');
      } finally {
        await run('umount', [where]);
      }
    },
  );
});
