import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from './registry.ts';

/** Where Debian's nut-server installs the daemon and the drivers. */
export const NUT_BIN_DIR = '/lib/nut';

export interface LabUps {
  /** The UPS name in upsd. */
  name: string;
  host: string;
  port: number;
  dir: string;
  /** Rewrites the dummy-ups status file (`{'ups.status': 'OB LB', 'battery.charge': '8'}`). */
  setVars(vars: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real NUT server for tests: the `dummy-ups` driver reading a status file, and `upsd` listening
 * on a free port of 127.0.0.1, both as root with their configuration, state and pid files in a temp
 * directory (nothing of the host's /etc/nut is read). Stop it in teardown.
 */
export async function startLabUps(
  options: { name?: string; vars?: Record<string, string> } = {},
): Promise<LabUps> {
  const name = options.name ?? 'lab';
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-nut-'));
  await fs.chmod(dir, 0o700);
  const port = await freeLoopbackPort();
  const devFile = path.join(dir, `${name}.dev`);
  const render = (vars: Record<string, string>) =>
    `${Object.entries(vars)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n`;
  await fs.writeFile(
    devFile,
    render(options.vars ?? { 'ups.status': 'OL', 'battery.charge': '100', 'battery.runtime': '1800' }),
  );
  let mtimeSeconds = Math.floor((await fs.stat(devFile)).mtimeMs / 1000);
  await fs.writeFile(
    path.join(dir, 'ups.conf'),
    `[${name}]\n  driver = dummy-ups\n  port = ${devFile}\n  desc = "lab UPS"\n  pollinterval = 1\n`,
  );
  await fs.writeFile(path.join(dir, 'upsd.conf'), `LISTEN 127.0.0.1 ${port}\n`);
  await fs.writeFile(path.join(dir, 'upsd.users'), '', { mode: 0o600 });
  await fs.writeFile(path.join(dir, 'nut.conf'), 'MODE=standalone\n');
  const env = {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    NUT_CONFPATH: dir,
    NUT_STATEPATH: dir,
    NUT_ALTPIDPATH: dir,
  };
  const log = await fs.open(path.join(dir, 'nut.log'), 'a');
  const children: ChildProcess[] = [];
  const exited = new Set<ChildProcess>();
  const start = (bin: string, args: string[]) => {
    const child = spawn(path.join(NUT_BIN_DIR, bin), args, { env, stdio: ['ignore', log.fd, log.fd] });
    child.on('exit', () => exited.add(child));
    children.push(child);
    return child;
  };
  const stop = async () => {
    for (const c of [...children].reverse()) if (!exited.has(c)) c.kill('SIGTERM');
    const end = Date.now() + 10_000;
    while (children.some((c) => !exited.has(c)) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    for (const c of children) if (!exited.has(c)) c.kill('SIGKILL');
    await log.close().catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await fs.access(path.join(NUT_BIN_DIR, 'upsd'));
  } catch {
    await stop();
    throw new Error(`${NUT_BIN_DIR}/upsd is missing: install the Debian package nut-server`);
  }
  start('dummy-ups', ['-a', name, '-u', 'root', '-F']);
  // the driver's socket first, then upsd (it connects to the driver at start)
  const socket = path.join(dir, `dummy-ups-${name}`);
  const end = Date.now() + 15_000;
  while (
    !(await fs.stat(socket).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > end || children.some((c) => exited.has(c))) {
      const text = await fs.readFile(path.join(dir, 'nut.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`dummy-ups did not start: ${text.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  start('upsd', ['-u', 'root', '-F']);
  const ups: LabUps = {
    name,
    host: '127.0.0.1',
    port,
    dir,
    async setVars(vars) {
      // written next to it and renamed: the driver never reads half a file
      await fs.writeFile(`${devFile}.tmp`, render(vars));
      // dummy-ups re-reads the file when its mtime in whole seconds differs from the one it last
      // read: a change written within the same second would be missed for good. Each write gets
      // a later second than the one before (a second ahead of the clock at most).
      mtimeSeconds = Math.max(Math.floor(Date.now() / 1000), mtimeSeconds + 1);
      await fs.utimes(`${devFile}.tmp`, mtimeSeconds, mtimeSeconds);
      await fs.rename(`${devFile}.tmp`, devFile);
    },
    stop,
  };
  while (!(await upsdAnswers(port, name))) {
    if (Date.now() > end + 15_000 || children.some((c) => exited.has(c))) {
      const text = await fs.readFile(path.join(dir, 'nut.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`upsd did not start: ${text.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return ups;
}

/** Whether upsd answers `GET VAR <ups> ups.status` with a value. */
async function upsdAnswers(port: number, name: string): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    let text = '';
    s.setTimeout(2000, () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(false));
    s.on('connect', () => s.write(`GET VAR ${name} ups.status\n`));
    s.on('data', (d) => {
      text += d.toString();
      if (text.includes('\n')) {
        s.end('LOGOUT\n');
        s.destroy();
        // upsd answers "WAIT" until the driver's first data
        resolve(text.startsWith('VAR ') && !text.includes('"WAIT"'));
      }
    });
  });
}
