/**
 * The SMART watcher through the real server on a real array (lab mode, loop devices): the real
 * smartctl says SMART is unavailable on a loop device and the watcher reports it in GET /health
 * without an event; then smartctl's answer for one disk is replaced by a real failing disk's output
 * (fixtures/smartctl, injected at the command runner: the only way to have a failing disk here),
 * and smart_failure and smart_warning reach a routed webhook and SMTP receiver once, name the disk,
 * clear when the disk reads healthy, and GET /disks/:id/smart shows the history. No probe ever
 * omits `-n standby`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type CommandRunner, createCommandRunner } from '@appliance/common';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

const run = promisify(execFile);
const MiB = 1024 ** 2;
const FIXTURES = path.join(import.meta.dirname, '../../../../watchers/fixtures/smartctl');

describe('SMART watcher (real smartctl on a real array)', () => {
  let work: string;
  let s: Sandbox;
  let rx: Receivers;
  let hostRoot: ReturnType<typeof labHostRoot>;
  const disks: Record<string, LoopDisk> = {};
  const smartctlCalls: string[][] = [];
  /** The smartctl output given for disk1 instead of the real one (null: the real smartctl answers). */
  let injected: string | null = null;

  const runner = (): CommandRunner => {
    const real = createCommandRunner();
    return {
      resolve: (command) => real.resolve(command),
      async run(command, args, options) {
        if (command === 'smartctl') {
          smartctlCalls.push([...args]);
          if (injected && args.at(-1) === disks['data1']!.device) {
            const text = await fs.readFile(path.join(FIXTURES, `${injected}.json`), 'utf8');
            const json = JSON.parse(text) as { smartctl: { exit_status: number } };
            return {
              command,
              args,
              exitCode: json.smartctl.exit_status,
              stdout: text,
              stderr: '',
              timedOut: false,
            };
          }
        }
        return real.run(command, args, options);
      },
    };
  };
  const health = async () => (await s.call('GET', '/health')).body;
  const data1 = () => disks['data1']!.device;

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['losetup', 'mkfs.xfs', 'mkfs.ext4', 'mount', 'smartctl'],
    });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'watchers-smart-'));
    const imageDir = path.join(work, 'images');
    await fs.mkdir(imageDir);
    disks['parity'] = await createLoopDisk({ sizeBytes: 512 * MiB, imageDir });
    disks['data1'] = await createLoopDisk({ sizeBytes: 256 * MiB, imageDir });
    hostRoot = labHostRoot();
    s = await startSandbox({
      lab: true,
      hostRoot: hostRoot.dir,
      config: { lab: { enabled: true, imageDir } },
      start: { runner: runner() },
    });
    const body = [
      { device: disks['parity'].device, role: 'parity' },
      { device: data1(), role: 'data', filesystem: 'ext4' },
    ];
    const confirmation = `ERASE ${body
      .map((d) => d.device)
      .sort()
      .join(', ')}`;
    const created = await s.call('POST', '/disks/array', { disks: body, confirmation });
    expect(created.status, created.text).toBe(201);
    rx = await routedReceivers(s, ['smart_warning', 'smart_failure']);
  }, 300_000);

  afterAll(async () => {
    if (s)
      for (const m of ['user', 'disk1', 'parity1'])
        await run('umount', ['-l', path.join(s.root, 'mnt', m)]).catch(() => undefined);
    await s?.close();
    await rx?.close();
    for (const d of Object.values(disks)) await d.destroy();
    hostRoot?.remove();
    if (work) await fs.rm(work, { recursive: true, force: true });
  }, 120_000);

  it('real smartctl on loop devices: SMART unavailable, shown in GET /health, no event', async () => {
    const status = await s.server.ctx.watchers.runOnce('smart');
    expect(status.error).toBeNull();
    const h = await health();
    expect(h.conditions).toEqual([]);
    const notes = h.watchers.find((w: { name: string }) => w.name === 'smart').notes;
    expect(notes).toEqual([
      {
        subject: `parity1 (/mnt/parity1, ${disks['parity']!.device})`,
        message: `SMART unavailable: ${disks['parity']!.device}: Unable to detect device type`,
      },
      {
        subject: `disk1 (/mnt/disk1, ${data1()})`,
        message: `SMART unavailable: ${data1()}: Unable to detect device type`,
      },
    ]);
    expect(alertsOf(s, 'smart_warning')).toEqual([]);
    expect(alertsOf(s, 'smart_failure')).toEqual([]);
    const report = await s.call('GET', `/disks/${path.basename(data1())}/smart`);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      device: data1(),
      slot: '/mnt/disk1',
      last: { state: 'unavailable', findings: [] },
      history: [],
    });
  });

  it('a failing disk: smart_failure and one grouped smart_warning, delivered once each, naming the disk', async () => {
    injected = 'ata-failing-hitachi-hds721050dle630';
    await s.server.ctx.watchers.runOnce('smart');
    const failure = await rx.waitFor('smart_failure');
    const warning = await rx.waitFor('smart_warning');
    expect(failure.webhook[0]!.title).toBe('SMART: disk1 is failing');
    expect(failure.webhook[0]!.message).toMatch(
      /^disk1 \(\/mnt\/disk1, Hitachi HDS721050DLE630 serial MSK423Y20S3HBC, \/dev\/loop\d+\): SMART reports the disk as failing: its overall health self-assessment is FAILED/,
    );
    expect(failure.mail[0]!.subject).toBe('[critical] SMART: disk1 is failing');
    expect(warning.webhook[0]!.title).toBe('SMART warning on disk1: 1975 sectors (and 1 more)');
    expect(warning.webhook[0]!.message).toContain(
      'SMART attribute 5 (reallocated sectors) is 1975 (warning at 1).',
    );
    expect(warning.mail[0]!.body).toContain('SMART attribute 197 (pending sectors) is 8 (warning at 1).');
    const held = (await health()).conditions.map((c: { key: string; value: string }) => [c.key, c.value]);
    const key = `smart:device:${data1()}`;
    expect(held).toEqual([
      [`${key}:failed`, 'FAILED'],
      [`${key}:ata5`, '1975 sectors'],
      [`${key}:ata197`, '8 sectors'],
    ]);
    for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('smart');
    expect(alertsOf(s, 'smart_failure')).toHaveLength(1);
    expect(alertsOf(s, 'smart_warning')).toHaveLength(1);
    const report = await s.call('GET', `/disks/${path.basename(data1())}/smart`);
    expect(report.body.last).toMatchObject({
      state: 'ok',
      passed: false,
      temperatureC: 25,
      powerOnHours: 65592,
    });
    expect(report.body.last.findings.map((f: { id: string }) => f.id)).toEqual(['failed', 'ata5', 'ata197']);
    expect(report.body.history).toEqual([
      {
        at: expect.any(String),
        passed: false,
        temperatureC: 25,
        powerOnHours: 65592,
        counters: { reallocatedSectors: 1975, pendingSectors: 8, offlineUncorrectable: 0, crcErrors: 0 },
      },
    ]);
  });

  it('the disk reads healthy: every SMART condition clears, the history shows the change', async () => {
    injected = 'ata-healthy-wdc-wd140edfz';
    await s.server.ctx.watchers.runOnce('smart');
    expect((await health()).conditions).toEqual([]);
    const report = await s.call('GET', `/disks/${path.basename(data1())}/smart`);
    expect(report.body.history.map((h: { passed: boolean }) => h.passed)).toEqual([true, false]);
    expect(rx.webhooks('smart_failure')).toHaveLength(1);
  });

  it('never a probe without -n standby; an unknown disk is 404, a bad name 400', async () => {
    expect(smartctlCalls.length).toBeGreaterThan(0);
    expect(smartctlCalls.filter((a) => a.join(' ').indexOf('-n standby') < 0)).toEqual([]);
    const missing = await s.call('GET', '/disks/sdzz/smart');
    expect([missing.status, missing.body.code]).toEqual([404, 'disk_not_found']);
    expect((await s.call('GET', '/disks/..%2Fetc/smart')).status).toBe(400);
    expect((await s.call('GET', `/disks/${path.basename(data1())}/smart?limit=0`)).status).toBe(400);
  });
});
