import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderSmbConf } from '../core/render-smb-conf.ts';
import { type SambaSandboxLayout, sambaSandboxGlobals, sambaSandboxLayout } from '../core/samba-sandbox.ts';
import { smbdPid } from './samba-reload.ts';
import { type SandboxSmbd, createSandboxSmbd, processesUsing, sessionMembers } from './sandbox-smbd.ts';

// A real smbd (Debian's samba) under a temporary root, on a free loopback port.
const run = promisify(execFile);
let work: string;
let hostBefore: string;
const started: SandboxSmbd[] = [];

/** Names, sizes and modification times below the machine's own Samba directories. */
function hostSambaState(): string {
  const lines: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      lines.push(`${dir} (absent)`);
      return;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      const st = fs.lstatSync(full);
      lines.push(`${full} ${st.mode.toString(8)} ${st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(full);
    }
  };
  for (const d of ['/etc/samba', '/var/lib/samba', '/var/cache/samba', '/run/samba', '/var/log/samba'])
    walk(d);
  return lines.join('\n');
}

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['smbd', 'setpriv', 'smbclient'] });
  hostBefore = hostSambaState();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'smbd-sbx-'));
  fs.chmodSync(work, 0o711); // the roots below it stand for a root prefix (searchable ancestors)
});
afterEach(async () => {
  for (const smbd of started.splice(0)) await smbd.stop();
  // nothing of the machine's own Samba was written (its configuration, passdb, locks, logs)
  expect(hostSambaState()).toBe(hostBefore);
});
afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A root (0700, as mkdtemp makes it) with its generated smb.conf and the pool directory. */
async function sandboxRoot(parent = work): Promise<{ root: string; layout: SambaSandboxLayout }> {
  const root = fs.mkdtempSync(path.join(parent, 'r-'));
  const layout = sambaSandboxLayout({
    real: (logical) => path.join(root, logical),
    smbConf: path.join(root, 'etc/appliance/samba/smb.conf'),
    poolDir: path.join(root, 'mnt/user'),
    port: await freePort(),
  });
  fs.mkdirSync(path.dirname(layout.smbConf), { recursive: true });
  fs.mkdirSync(path.join(layout.poolDir, 'media'), { recursive: true });
  fs.writeFileSync(
    layout.smbConf,
    renderSmbConf(
      {
        shares: [{ name: 'media', smb: { enabled: true, browseable: true } }],
        users: [],
        groups: [],
        userGrants: [],
        groupGrants: [],
      },
      { poolDir: layout.poolDir, globals: sambaSandboxGlobals(layout) },
    ),
  );
  return { root, layout };
}

function smbd(
  layout: SambaSandboxLayout,
  root: string,
  onStarted?: (pid: number) => void,
  logs: string[] = [],
  restartDelayMs: (n: number) => number = () => 100,
): SandboxSmbd {
  const s = createSandboxSmbd({
    runner: createCommandRunner(),
    layout,
    root,
    ...(onStarted ? { onStarted } : {}),
    restartDelayMs,
    log: (_level, message) => logs.push(message),
  });
  started.push(s);
  return s;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('createSandboxSmbd (real smbd)', () => {
  it('starts smbd on the loopback port with its directories under the root, and stops every process', async () => {
    const { root, layout } = await sandboxRoot();
    const s = smbd(layout, root);
    const pid = await s.start();
    expect(s.pid()).toBe(pid);
    expect(await smbdPid(layout.pidFile)).toBe(pid);
    expect(await accepts(layout.port)).toBe(true);
    // loopback only: bound to 127.0.0.1 and ::1, never to the machine's addresses
    const listening = (await run('ss', ['-Hltn', `sport = :${layout.port}`])).stdout;
    const addresses = listening
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[3]);
    expect(addresses.sort()).toEqual([`127.0.0.1:${layout.port}`, `[::1]:${layout.port}`]);
    // Samba's files are the sandbox's: private dir 0700, the root searchable (not listable) by others
    expect(fs.statSync(layout.dirs.private).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(layout.dirs.lock)).toContain('msg.sock');
    expect(fs.statSync(root).mode & 0o777).toBe(0o701);
    // a smbd session with helpers (notifyd, cleanupd) and a client connection's process
    const client = await run('smbclient', [
      '-N',
      '-p',
      String(layout.port),
      '-s',
      layout.smbConf,
      '//127.0.0.1/media',
      '-c',
      'ls',
    ]).catch((e: { stdout: string; stderr: string }) => e);
    expect(`${client.stdout}${client.stderr}`).toMatch(/NT_STATUS_(ACCESS_DENIED|BAD_NETWORK_NAME)/);
    expect(sessionMembers(pid).length).toBeGreaterThanOrEqual(2);
    const members = sessionMembers(pid);

    await s.stop();
    expect(s.pid()).toBeNull();
    expect(members.filter((p) => fs.existsSync(`/proc/${p}`) && sessionMembers(pid).includes(p))).toEqual([]);
    expect(processesUsing(layout.smbConf)).toEqual([]);
    expect(await accepts(layout.port)).toBe(false);
  });

  it('stops an smbd of the same root left running, then starts its own', async () => {
    const { root, layout } = await sandboxRoot();
    // an smbd of this root started outside the service (daemon mode)
    for (const dir of Object.values(layout.dirs)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    await run('smbd', ['-D', `--log-basename=${layout.dirs.log}`, '-s', layout.smbConf]);
    await waitFor('the stray smbd', async () => (await smbdPid(layout.pidFile)) !== null);
    const stray = (await smbdPid(layout.pidFile))!;
    const s = smbd(layout, root);
    const pid = await s.start();
    expect(pid).not.toBe(stray);
    expect(sessionMembers(stray)).toEqual([]);
    await s.stop();
    expect(processesUsing(layout.smbConf)).toEqual([]);
  });

  it('refuses a port in use, leaving no smbd behind', async () => {
    const { root, layout } = await sandboxRoot();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(layout.port, '127.0.0.1', () => r()));
    try {
      await expect(smbd(layout, root).start()).rejects.toThrow(/Port \d+ on 127.0.0.1 is in use/);
      expect(processesUsing(layout.smbConf)).toEqual([]);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it('reports an smbd that exits at once (nothing to listen on), leaving nothing behind', async () => {
    const { root, layout } = await sandboxRoot();
    const conf = fs.readFileSync(layout.smbConf, 'utf8');
    fs.writeFileSync(layout.smbConf, conf.replace('   interfaces = lo\n', '   interfaces = 192.0.2.1/32\n'));
    await expect(smbd(layout, root).start()).rejects.toThrow(/smbd exited before accepting connections/);
    expect(processesUsing(layout.smbConf)).toEqual([]);
  });

  it('starts smbd again when it dies while the service runs', async () => {
    const { root, layout } = await sandboxRoot();
    const starts: number[] = [];
    const s = smbd(layout, root, (pid) => starts.push(pid));
    const first = await s.start();
    process.kill(first, 'SIGKILL');
    await waitFor('the restart', () => starts.length === 2);
    expect(starts[1]).not.toBe(first);
    expect(s.pid()).toBe(starts[1]);
    expect(await accepts(layout.port)).toBe(true);
    await s.stop();
    expect(processesUsing(layout.smbConf)).toEqual([]);
  });

  it('tries again when a restart fails (the port taken meanwhile), and stop() ends the retries', async () => {
    const { root, layout } = await sandboxRoot();
    const starts: number[] = [];
    const logs: string[] = [];
    // the first restart waits long enough for the port to be taken; the next ones 100 ms
    const s = smbd(
      layout,
      root,
      (pid) => starts.push(pid),
      logs,
      (n) => (n === 1 ? 1_000 : 100),
    );
    const blocker = net.createServer();
    const first = await s.start();
    process.kill(first, 'SIGKILL');
    // the port is taken before the restart: that restart fails and is tried again
    await waitFor('the port to be free', async () => !(await accepts(layout.port)));
    await new Promise<void>((r) => blocker.listen(layout.port, '127.0.0.1', () => r()));
    await waitFor('a failed restart', () => logs.includes('restarting the sandboxed smbd failed'));
    expect(starts).toHaveLength(1);
    await new Promise((r) => blocker.close(r));
    await waitFor('the next restart', () => starts.length === 2);
    expect(await accepts(layout.port)).toBe(true);
    // killed again and stopped before its restart: nothing comes back
    const exits = logs.filter((m) => m.includes('exited; starting it again')).length;
    process.kill(starts[1]!, 'SIGKILL');
    await waitFor('the exit noticed', () => logs.filter((m) => m.includes('exited')).length > exits);
    await s.stop();
    await new Promise((r) => setTimeout(r, 1_500)); // longer than any restart delay of this test
    expect(starts).toHaveLength(2);
    expect(processesUsing(layout.smbConf)).toEqual([]);
  });

  it('refuses a root below a directory others cannot search, changing nothing there', async () => {
    const closed = fs.mkdtempSync(path.join(work, 'closed-'));
    fs.chmodSync(closed, 0o700);
    const { root, layout } = await sandboxRoot(closed);
    await expect(smbd(layout, root).start()).rejects.toThrow(new RegExp(`${closed} is not: run chmod o\\+x`));
    expect(fs.statSync(closed).mode & 0o777).toBe(0o700);
    expect(processesUsing(layout.smbConf)).toEqual([]);
  });
});
