/**
 * Issue 38 through the real server: reboot_required from a test host root's run/reboot-required
 * (raised once, cleared when it goes), a reboot scheduled for a time that waits for the array job
 * (systemctl is a shim of the test first on the tool path: this machine never reboots), and apt
 * against a repository and dpkg root of the test's own (never this machine's dpkg database):
 * version 2 published → appliance_update_available once, apply → version 2 and the pre-update
 * archive; a failing postinst in version 3 → appliance_update_failed with apt's line, dpkg's state.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixedClock, HOST_PATH } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { type AptLab, createAptLab } from '@appliance/updates/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf } from '../../../test-support/watchers.ts';
import { systemRebootJob } from './index.ts';

/** A host root with an account database, /run, /boot and the running kernel of its own. */
function hostRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'updates-hostroot-'));
  for (const d of ['etc', 'run', 'boot', 'proc/sys/kernel'])
    fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.writeFileSync(path.join(dir, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  fs.writeFileSync(path.join(dir, 'etc/group'), 'root:x:0:\n');
  fs.writeFileSync(path.join(dir, 'proc/sys/kernel/osrelease'), '6.1.0-17-amd64\n');
  fs.writeFileSync(path.join(dir, 'boot/vmlinuz-6.1.0-17-amd64'), '');
  return dir;
}

/** A `systemctl` shim that records its arguments (first on the service's tool path). */
function systemctlShim(): { dir: string; calls(): string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'updates-shim-'));
  const log = path.join(dir, 'calls');
  fs.writeFileSync(path.join(dir, 'systemctl'), `#!/bin/sh\necho "$*" >> '${log}'\n`, { mode: 0o755 });
  return {
    dir,
    calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []),
  };
}

const waitJob = async (s: Sandbox, id: string) => s.server.ctx.jobs.wait(id);

describe('reboot required and the scheduled reboot', () => {
  let s: Sandbox;
  let host: string;
  let shim: ReturnType<typeof systemctlShim>;
  const clock = fixedClock('2026-03-01T10:00:00.000Z');

  beforeAll(async () => {
    host = hostRoot();
    shim = systemctlShim();
    s = await startSandbox({
      hostRoot: host,
      config: { toolPath: `${shim.dir}:${HOST_PATH}` },
      start: { clock, scheduler: false },
    });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(host, { recursive: true, force: true });
    fs.rmSync(shim.dir, { recursive: true, force: true });
  });

  it('raises reboot_required once naming the packages, and clears it when the flag goes', async () => {
    const reboot = async () => (await s.call('GET', '/system/reboot')).body;
    await s.server.ctx.watchers.runOnce('reboot');
    expect(await reboot()).toMatchObject({ required: false, packages: [] });

    fs.writeFileSync(path.join(host, 'run/reboot-required'), '*** System restart required ***\n');
    fs.writeFileSync(path.join(host, 'run/reboot-required.pkgs'), 'libc6\ndbus\nlibc6\n');
    await s.server.ctx.watchers.runOnce('reboot');
    await s.server.ctx.watchers.runOnce('reboot');
    const alerts = alertsOf(s, 'reboot_required');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain('libc6, dbus');
    expect(await reboot()).toMatchObject({ required: true, packages: ['libc6', 'dbus'] });

    fs.rmSync(path.join(host, 'run/reboot-required'));
    fs.rmSync(path.join(host, 'run/reboot-required.pkgs'));
    await s.server.ctx.watchers.runOnce('reboot');
    expect(await reboot()).toMatchObject({ required: false });
    const health = (await s.call('GET', '/health')).body;
    expect(JSON.stringify(health)).not.toContain('reboot:required');

    // a newer kernel installed under /boot than the one running: required again, naming it
    fs.writeFileSync(path.join(host, 'boot/vmlinuz-6.1.0-18-amd64'), '');
    await s.server.ctx.watchers.runOnce('reboot');
    expect(alertsOf(s, 'reboot_required')).toHaveLength(2);
    expect(await reboot()).toMatchObject({ required: true, packages: ['linux-image-6.1.0-18-amd64'] });
    fs.rmSync(path.join(host, 'boot/vmlinuz-6.1.0-18-amd64'));
    await s.server.ctx.watchers.runOnce('reboot');
    expect(await reboot()).toMatchObject({ required: false });
  });

  it('refuses a time that is not one or too far ahead, writing nothing', async () => {
    const before = s.dumpDatabase();
    for (const at of ['tomorrow', '2026-05-01T10:00:00Z']) {
      const r = await s.call('POST', '/system/reboot', { at });
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toBe('bad_request');
    }
    expect(s.dumpDatabase()).toBe(before);
    expect((await s.call('POST', '/system/reboot', { at: 3 })).status).toBe(400);
  });

  it('schedules a reboot for a time; it waits while an array job runs, then runs systemctl reboot once', async () => {
    const r = await s.call('POST', '/system/reboot', { at: '2026-03-01T12:00:00Z' });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ scheduledAt: '2026-03-01T12:00:00.000Z', scheduledBy: 'admin' });

    await s.server.ctx.scheduler.tick();
    expect(shim.calls()).toEqual([]); // not due yet

    clock.set('2026-03-01T12:00:30.000Z');
    const release = s.server.ctx.jobs.hold(['array'], {
      type: 'parity.sync',
      target: '/mnt/user',
      title: 'the parity sync',
    });
    await s.server.ctx.scheduler.tick();
    expect(shim.calls()).toEqual([]); // an array job runs: the reboot waits
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBe('2026-03-01T12:00:00.000Z');

    release();
    await s.server.ctx.scheduler.tick();
    const job = s.server.ctx.jobs.latest(systemRebootJob);
    expect(job).not.toBeNull();
    expect((await waitJob(s, job!.id)).state).toBe('succeeded');
    expect(shim.calls()).toEqual(['reboot']);
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBeNull();
    await s.server.ctx.scheduler.tick();
    expect(shim.calls()).toEqual(['reboot']);
  });

  it('a scheduled reboot can be cancelled', async () => {
    expect((await s.call('POST', '/system/reboot', { at: '2026-03-02T03:00:00Z' })).status).toBe(202);
    const d = await s.call('DELETE', '/system/reboot');
    expect(d.status).toBe(200);
    expect(d.body.scheduledAt).toBeNull();
    clock.set('2026-03-02T04:00:00.000Z');
    await s.server.ctx.scheduler.tick();
    expect(shim.calls()).toEqual(['reboot']);
  });
});

describe('updates through apt on a private root', () => {
  let s: Sandbox;
  let lab: AptLab;

  beforeAll(async () => {
    await requirePrerequisites({ tools: ['apt-get', 'dpkg-deb', 'dpkg-scanpackages', 'zstd'] });
    lab = await createAptLab();
    await lab.publish('demo-tool', '1.0');
    await lab.aptGet('-q', 'update');
    await lab.aptGet('-y', '-q', 'install', 'demo-tool=1.0');
    s = await startSandbox({
      config: { updates: { aptConfig: lab.aptConfig } },
      start: { scheduler: false },
    });
  });
  afterAll(async () => {
    await s?.close();
    await lab?.destroy();
  });

  const check = async () => {
    const r = await s.call('POST', '/updates/check');
    expect(r.status, r.text).toBe(202);
    return waitJob(s, r.body.id);
  };

  it('version 2 published: the event once per set; apply installs it after writing an archive', async () => {
    expect((await check()).state).toBe('succeeded');
    expect((await s.call('GET', '/updates')).body).toMatchObject({ pending: [], lastApply: null });
    expect(alertsOf(s, 'appliance_update_available')).toHaveLength(0);

    await lab.publish('demo-tool', '2.0');
    await check();
    await check();
    const alerts = alertsOf(s, 'appliance_update_available');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain('demo-tool 1.0 → 2.0');
    const view = (await s.call('GET', '/updates')).body;
    expect(view.pending).toMatchObject([{ name: 'demo-tool', from: '1.0', to: '2.0', security: false }]);
    expect(view.security).toEqual([]);
    expect(view.checkedAt).not.toBeNull();

    const r = await s.call('POST', '/updates/apply');
    expect(r.status, r.text).toBe(202);
    const job = await waitJob(s, r.body.id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ upgraded: [{ name: 'demo-tool', to: '2.0' }], pending: [] });
    expect(await lab.installed('demo-tool')).toBe('2.0');
    expect(lab.payload('demo-tool')).toBe('2.0');
    const archive = (job.result as { archive: string }).archive;
    expect(archive).toMatch(/^\/var\/lib\/appliance\/backups\/pre-update-\d{8}T\d{6}Z\.tar\.zst$/);
    const real = path.join(s.root, archive);
    expect(fs.statSync(real).size).toBeGreaterThan(0);
    expect(fs.statSync(real).mode & 0o777).toBe(0o600);

    const after = (await s.call('GET', '/updates')).body;
    expect(after.pending).toEqual([]);
    expect(after.lastApply).toMatchObject({ id: job.id, state: 'succeeded' });
    const held = (await s.call('GET', '/health')).body;
    expect(JSON.stringify(held)).not.toContain('updates:available:');
  });

  it('never during an array job', async () => {
    const release = s.server.ctx.jobs.hold(['array'], {
      type: 'parity.sync',
      target: '/mnt/user',
      title: 'the parity sync',
    });
    try {
      const r = await s.call('POST', '/updates/apply');
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('job_running');
    } finally {
      release();
    }
  });

  it('a failing postinst in version 3: appliance_update_failed with apt’s line and dpkg’s state', async () => {
    await lab.publish('demo-tool', '3.0', { failingPostinst: true });
    await check();
    expect(alertsOf(s, 'appliance_update_available')).toHaveLength(2); // a new set
    const r = await s.call('POST', '/updates/apply');
    const job = await waitJob(s, r.body.id);
    expect(job.state).toBe('failed');
    const line =
      'demo-tool: installed demo-tool package post-installation script subprocess returned error exit status 1';
    expect(job.error).toMatchObject({
      code: 'update_failed',
      message: `The upgrade failed: ${line}`,
      details: {
        errorLine: line,
        dpkgClean: false,
        brokenPackages: ['demo-tool'],
        remedy: 'dpkg --configure -a && apt-get -f install',
      },
    });
    const failed = alertsOf(s, 'appliance_update_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.message).toContain(line);
    expect(failed[0]!.message).toContain('dpkg --configure -a');
    expect((await s.call('GET', '/updates')).body.lastApply).toMatchObject({ id: job.id, state: 'failed' });
  });

  it('the four update events are observed on this box', async () => {
    const r = await s.call('GET', '/notifications/event-types');
    const o = Object.fromEntries(
      r.body.eventTypes.map((e: { eventType: string; observed: boolean }) => [e.eventType, e.observed]),
    );
    expect(o).toMatchObject({
      reboot_required: true,
      appliance_update_available: true,
      appliance_update_failed: true,
    });
  });
});
