/**
 * What the service wires, over a real `JobRunner` and `Scheduler` on the in-memory ports of
 * `@appliance/jobs/testing`: the update jobs registered and started (apt refused first), the
 * status view, the reboot watcher over a fake host root, and where apt and the certificate are.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CommandRunner, isRefusal } from '@appliance/common';
import { JobRunner, type JobView, type Schedule } from '@appliance/jobs';
import { memoryPorts } from '@appliance/jobs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { REBOOT_KEY } from '../core/reboot.ts';
import { registerUpdateJobs, startUpdatesJob } from '../jobs/register.ts';
import { type UpdateJobPorts, updatesApplyJob, updatesCheckJob } from '../jobs/update-jobs.ts';
import { accountKeyFile, aptOnPath, hostAptDeps, servedFiles } from '../node/host.ts';
import { rebootPaths } from '../node/reboot-facts.ts';
import type { RenewalResult } from './renewal.ts';
import { type UpdatesState, updatesStatus } from './status.ts';
import type { UpdatePorts } from './updates.ts';
import { REBOOT_INTERVAL_S, RENEWAL_INTERVAL_S, rebootWatcher, renewalWatcher } from './watchers.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'updates-wiring-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function jobPorts(apt: string | null): UpdateJobPorts {
  const runner: CommandRunner = {
    resolve: async () => apt,
    run: async () => {
      throw new Error('nothing runs here');
    },
  };
  return {
    updates: { apt: { runner, aptConfig: null }, clock: { now: () => new Date() } } as unknown as UpdatePorts,
    runner,
    sandbox: false,
    aptInstalled: () => apt !== null,
    rebootAt: () => null,
    clearReboot: async () => undefined,
    startScheduled: async () => 'id',
    afterApply: async () => undefined,
  };
}

describe('the update jobs registered and started', () => {
  it('registers the three jobs and the two schedules; a start on request targets apt', async () => {
    const runner = new JobRunner(memoryPorts());
    const schedules: Schedule[] = [];
    registerUpdateJobs(runner, { register: (s) => schedules.push(s) }, jobPorts('/usr/bin/apt-get'));
    expect(schedules.map((s) => s.name)).toEqual(['updates.check', 'system.reboot']);
    expect(runner.registered('system.reboot')).toBeDefined();
    const view = await startUpdatesJob(jobPorts('/usr/bin/apt-get'), runner, updatesCheckJob, 'alice');
    expect(view).toMatchObject({ type: 'updates.check', target: 'apt', actor: 'alice', state: 'running' });
  });

  it('without apt-get nothing starts: refused not_configured', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    registerUpdateJobs(runner, { register: () => undefined }, jobPorts(null));
    const err = await startUpdatesJob(jobPorts(null), runner, updatesApplyJob, null).catch((e: unknown) => e);
    expect(isRefusal(err) && err.code).toBe('not_configured');
    expect(runner.list({ limit: 5 })).toEqual([]);
  });
});

describe('updatesStatus', () => {
  const state: UpdatesState = {
    checkedAt: '2026-05-01T00:00:00.000Z',
    checkError: null,
    upgradable: [
      { name: 'a', from: '1', to: '2', origin: 'Debian', architecture: 'all', security: false },
      { name: 'b', from: '1', to: '2', origin: 'Debian-Security', architecture: 'all', security: true },
    ],
    rebootAt: null,
    rebootBy: null,
  };
  // biome-ignore lint/suspicious/noExplicitAny: a view of any job kind, as the runner answers
  const job = (type: string) => ({ id: type, type }) as JobView<any, any>;

  it('shows what is pending (security apart), the next check, the running update job, the last apply ended', () => {
    const asked: unknown[] = [];
    const status = updatesStatus({
      state: () => state,
      jobs: {
        running: () => [job('parity.sync'), job('updates.apply')],
        latest: (kind, states) => {
          asked.push([kind.type, states]);
          return job('last');
        },
      },
      nextCheckAt: () => '2026-05-02T00:00:00.000Z',
    });
    expect(status.pending).toHaveLength(2);
    expect(status.security.map((p) => p.name)).toEqual(['b']);
    expect(status.running?.type).toBe('updates.apply');
    expect(status.lastApply?.id).toBe('last');
    expect(status.nextCheckAt).toBe('2026-05-02T00:00:00.000Z');
    expect(asked).toEqual([['updates.apply', ['succeeded', 'failed', 'cancelled', 'interrupted']]]);
  });

  it('no update job running: running is null', () => {
    const status = updatesStatus({
      state: () => state,
      jobs: { running: () => [job('parity.sync')], latest: () => null },
      nextCheckAt: () => null,
    });
    expect([status.running, status.lastApply]).toEqual([null, null]);
  });
});

describe('the watchers', () => {
  it('reboot: reboot_required while the flag file exists under the host root, cleared when gone', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'run'));
    fs.mkdirSync(path.join(root, 'boot'));
    fs.mkdirSync(path.join(root, 'proc/sys/kernel'), { recursive: true });
    fs.writeFileSync(path.join(root, 'proc/sys/kernel/osrelease'), '6.1.0-1-amd64\n');
    fs.writeFileSync(path.join(root, 'run/reboot-required'), '');
    const w = rebootWatcher(() => rebootPaths(root));
    expect([w.name, w.owns, w.intervalSeconds()]).toEqual(['reboot', [REBOOT_KEY], REBOOT_INTERVAL_S]);
    expect((await w.observe([])).conditions?.map((c) => c.key)).toEqual([REBOOT_KEY]);
    fs.rmSync(path.join(root, 'run/reboot-required'));
    expect((await w.observe([])).conditions ?? []).toEqual([]);
  });

  it('certificate-renewal: each cycle runs the renewal and observes its outcome', async () => {
    let runs = 0;
    const observation = { conditions: [] };
    const w = renewalWatcher(async () => {
      runs += 1;
      return { observation } as unknown as RenewalResult;
    });
    expect(w.intervalSeconds()).toBe(RENEWAL_INTERVAL_S);
    expect(await w.observe([])).toBe(observation);
    expect(runs).toBe(1);
  });
});

describe('the host', () => {
  it('finds apt-get on the tool path', () => {
    const bin = tmp();
    expect(aptOnPath(`/nonexistent:${bin}`)).toBe(false);
    fs.writeFileSync(path.join(bin, 'apt-get'), '');
    expect(aptOnPath(`/nonexistent:${bin}`)).toBe(true);
  });

  it('runs apt in a transient unit only on the real host booted with systemd', () => {
    const runner = {} as CommandRunner;
    const systemd = tmp();
    expect(hostAptDeps({ runner, aptConfig: null, sandbox: false, systemdDir: systemd }).transientUnit).toBe(
      true,
    );
    expect(hostAptDeps({ runner, aptConfig: null, sandbox: true, systemdDir: systemd }).transientUnit).toBe(
      false,
    );
    const none = path.join(systemd, 'absent');
    expect(hostAptDeps({ runner, aptConfig: 'a', sandbox: false, systemdDir: none })).toEqual({
      runner,
      aptConfig: 'a',
      transientUnit: false,
    });
  });

  it('serves the configured pair, else the generated one; the account key by default under etc', () => {
    expect(servedFiles('/c.pem', '/k.pem', '/etc/x')).toEqual({ cert: '/c.pem', key: '/k.pem' });
    expect(servedFiles('/c.pem', null, '/etc/x')).toEqual({
      cert: '/etc/x/tls/cert.pem',
      key: '/etc/x/tls/key.pem',
    });
    expect(accountKeyFile(undefined, '/etc/x')).toBe('/etc/x/acme/account.pem');
    expect(accountKeyFile('/k', '/etc/x')).toBe('/k');
  });
});
