import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  type CommandRunner,
  createCommandRunner,
  createHostPaths,
  createInventoryReader,
} from '@appliance/common';
import { type LoopDisk, createLoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planArraySetup } from '../core/array-setup.ts';
import { installGuardShims } from '../test-support/guard-shims.ts';
import { executeArraySetup, undoMounts } from './array-setup.ts';
import { isPoolMounted } from './pool-state.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('array setup on real loop devices (lab mode)', () => {
  let root: string;
  let imageDir: string;
  let runner: CommandRunner;
  const ran: string[] = [];
  const disks: LoopDisk[] = [];
  const paths = () => createHostPaths({ root });

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['losetup', 'wipefs', 'mkfs.xfs', 'blkid', 'mount', 'umount', 'findmnt', 'mergerfs', 'snapraid'],
    });
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'array-setup-'));
    imageDir = path.join(root, 'images');
    const real = createCommandRunner({ path: await installGuardShims(path.join(root, 'shims'), imageDir) });
    runner = {
      resolve: (cmd) => real.resolve(cmd),
      run: (cmd, args, opts) => {
        ran.push([cmd, ...args].join(' '));
        return real.run(cmd, args, opts);
      },
    };
    // parity 400 MiB, two data disks 320 MiB, a cache 320 MiB; one carries an old filesystem
    disks.push(await createLoopDisk({ sizeBytes: 400 * MiB, imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, imageDir, filesystem: 'ext4', label: 'old' }));
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, imageDir }));
  }, 120_000);

  afterAll(async () => {
    const p = createHostPaths({ root });
    await undoMounts(createCommandRunner(), [
      p.userPool,
      ...['/mnt/parity1', '/mnt/disk1', '/mnt/disk2', '/mnt/cache'].map((m) => p.real(m)),
    ]);
    for (const d of disks) await d.destroy();
    for (const m of ['/mnt/parity1', '/mnt/disk1', '/mnt/disk2', '/mnt/cache'])
      await run('chattr', ['-i', p.real(m)]).catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true });
  }, 60_000);

  async function plan(confirmation?: string) {
    const [parity, d1, d2, cache] = disks as [LoopDisk, LoopDisk, LoopDisk, LoopDisk];
    const inventory = await createInventoryReader({
      paths: paths(),
      runner,
      lab: { enabled: true, imageDir },
    }).read();
    const request = {
      disks: [
        { device: d1.device, role: 'data' as const },
        { device: parity.device, role: 'parity' as const },
        { device: d2.device, role: 'data' as const, filesystem: 'xfs' as const },
        { device: cache.device, role: 'cache' as const },
      ],
      createPolicy: 'mfs' as const,
      confirmation,
    };
    return planArraySetup({ request, rows: [], inventory, externals: [] });
  }

  it('a wrong confirmation formats nothing; a failure part-way unmounts and a rerun completes', async () => {
    const wrong = await plan('ERASE everything');
    expect(wrong.refusal).toMatchObject({ status: 409, code: 'confirmation_required' });
    const expected = wrong.refusal?.details?.['expected'] as string;
    expect((await run('blkid', ['-p', '-o', 'export', (disks[1] as LoopDisk).device])).stdout).toContain(
      'LABEL=old',
    );

    // inject a failure at the cache's mkfs: the first three disks get mounted, then undone
    const cacheDevice = (disks[3] as LoopDisk).device;
    const failing: CommandRunner = {
      resolve: (cmd) => runner.resolve(cmd),
      run: (cmd, args, opts) =>
        cmd.startsWith('mkfs.') && args.includes(cacheDevice)
          ? Promise.resolve({
              command: cmd,
              args,
              exitCode: 1,
              stdout: '',
              stderr: 'injected',
              timedOut: false,
            })
          : runner.run(cmd, args, opts),
    };
    const first = await plan(expected);
    await expect(
      executeArraySetup(first.plan!, { paths: paths(), runner: failing, labMode: true }),
    ).rejects.toMatchObject({
      status: 500,
      code: 'array_setup_failed',
      details: { step: `mkfs ${cacheDevice}` },
    });
    const mountsAfterFailure = await fs.readFile('/proc/self/mountinfo', 'utf8');
    expect(mountsAfterFailure).not.toContain(path.join(root, 'mnt'));

    const events: string[] = [];
    const again = await plan(expected);
    const systemUnitsBefore = await fs.readdir('/etc/systemd/system').catch(() => []);
    const result = await executeArraySetup(again.plan!, {
      paths: paths(),
      runner,
      labMode: true,
      onProgress: (e) => events.push(e.step),
    });
    expect(result.members.map((m) => [m.role, m.roleIndex, m.mountpoint, m.label])).toEqual([
      ['parity', 1, '/mnt/parity1', 'parity1'],
      ['data', 1, '/mnt/disk1', 'disk1'],
      ['data', 2, '/mnt/disk2', 'disk2'],
      ['cache', 1, '/mnt/cache', 'cache'],
    ]);
    for (const m of result.members) {
      const probe = (await run('blkid', ['-p', '-o', 'export', m.device])).stdout;
      expect(probe).toContain('TYPE=xfs');
      expect(probe).toContain(`LABEL=${m.label}`);
      expect(probe).toContain(`UUID=${m.fsUuid}`);
      const src = (
        await run('findmnt', ['-n', '-r', '-o', 'SOURCE', '--mountpoint', path.join(root, m.mountpoint)])
      ).stdout.trim();
      expect(src).toBe(m.device);
    }
    expect(events[0]).toBe(`wipefs ${(disks[0] as LoopDisk).device}`);

    // snapraid.conf written atomically under the sandbox, and SnapRAID accepts it
    const conf = await fs.readFile(path.join(root, 'etc/appliance/snapraid.conf'), 'utf8');
    expect(conf).toBe(result.snapraidConf);
    expect(conf).toContain(`parity ${root}/mnt/parity1/snapraid.parity\n`);
    expect(conf).toContain(`data d2 ${root}/mnt/disk2/\n`);
    const diff = await run('snapraid', ['-c', path.join(root, 'etc/appliance/snapraid.conf'), 'diff']).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(diff.out).not.toMatch(/error|invalid|unknown|same device/i);
    expect(diff.code).toBe(0);

    // every mountpoint directory refuses writes while its disk is not mounted (issue 32)
    for (const m of result.members) {
      const at = path.join(root, m.mountpoint);
      await run('umount', [at]);
      expect((await run('lsattr', ['-d', at])).stdout.split(/\s+/)[0]).toContain('i');
      await expect(fs.writeFile(path.join(at, 'stray'), 'x')).rejects.toMatchObject({ code: 'EPERM' });
      await run('mount', [m.device, at]);
    }

    // the mergerfs pool: cache first, then the data disks
    expect(result.poolMounted).toBe(true);
    expect(await isPoolMounted(paths())).toBe(true);
    await fs.writeFile(path.join(root, 'mnt/user/hello.txt'), 'hi');
    expect(await fs.readFile(path.join(root, 'mnt/user/hello.txt'), 'utf8')).toBe('hi');

    // lab mode (and a root prefix): no boot-persistent unit anywhere, systemctl never ran
    expect(result.mountUnits).toBeNull();
    expect(events).not.toContain('mount units');
    const everything = await fs.readdir(root, { recursive: true });
    expect(everything.filter((p) => /\.(mount|device\.d)$|systemd/.test(p))).toEqual([]);
    expect(ran.filter((c) => c.startsWith('systemctl'))).toEqual([]);
    expect(await fs.readdir('/etc/systemd/system').catch(() => [])).toEqual(systemUnitsBefore);
  }, 180_000);
});
