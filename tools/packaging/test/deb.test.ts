// The appliance's own Debian package (tools/build-deb.mjs) installed into a clean root with dpkg
// (`--root`, its own admin directory, maintainer scripts chrootless with DPKG_ROOT: nothing of this
// machine's dpkg database, accounts or systemd is touched): the group and directories the postinst
// makes, the unit, the Node 24 runtime; the service started as its unit's ExecStart and
// Environment say answers; an upgrade to a newer build keeps the database.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs tool without types
import { buildDeb } from '../../build-deb.mjs';

const run = (command: string, args: string[]) => {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  expect(r.status, `${command} ${args.join(' ')}:\n${r.stdout}${r.stderr}`).toBe(0);
  return r.stdout;
};

let work: string;
let root: string;
let state: string;
let debs: { v1: string; v2: string };

/** The same build under a newer version (dpkg-deb unpacks, the control file changes, it packs again). */
function rebuildAs(deb: string, version: string): string {
  const tree = path.join(work, `tree-${version}`);
  run('dpkg-deb', ['-R', deb, tree]);
  const control = path.join(tree, 'DEBIAN/control');
  fs.writeFileSync(
    control,
    fs.readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${version}`),
  );
  const out = path.join(work, `appliance_${version}_amd64.deb`);
  run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', tree, out]);
  fs.rmSync(tree, { recursive: true, force: true });
  return out;
}

const dpkg = (...args: string[]) =>
  run('dpkg', [
    `--root=${root}`,
    `--admindir=${root}/var/lib/dpkg`,
    '--force-script-chrootless',
    // the clean root has no packages: the dependencies are this machine's to satisfy
    '--force-depends',
    `--log=${root}/var/log/dpkg.log`,
    ...args,
  ]);

/** Starts the installed service as its unit says (ExecStart, Environment), paths under the root. */
function startInstalled(): { proc: ChildProcess; socket: string } {
  const unit = fs.readFileSync(path.join(root, 'lib/systemd/system/appliance.service'), 'utf8');
  const exec = /^ExecStart=(\S+)$/m.exec(unit)![1]!;
  const env = Object.fromEntries(
    [...unit.matchAll(/^Environment=([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, path.join(root, m[2]!)]),
  );
  const socket = path.join(state, 'run.sock');
  const proc = spawn(
    path.join(root, exec),
    ['--root', state, '--listen', '127.0.0.1:0', '--socket', socket],
    {
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: work, ...env },
      stdio: 'ignore',
    },
  );
  return { proc, socket };
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

function call(
  socket: string,
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath: socket, method, path: `/api/v1${p}`, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A GET outside the API (the web UI's pages and assets) over the socket. */
function page(socket: string, p: string): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: socket, method: 'GET', path: p }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitForSocket(socket: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (fs.existsSync(socket)) {
      const ok = await call(socket, 'GET', '/notifications/event-types').then(
        () => true,
        () => false,
      );
      if (ok) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the installed service did not answer on ${socket}`);
}

beforeAll(() => {
  for (const tool of ['dpkg-deb', 'dpkg', 'groupadd', 'npm'])
    expect(spawnSync('sh', ['-c', `command -v ${tool}`]).status, `the host tool ${tool}`).toBe(0);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-deb-test-'));
  root = path.join(work, 'root');
  state = path.join(work, 'state');
  for (const d of ['var/lib/dpkg/updates', 'var/lib/dpkg/info', 'var/log', 'etc'])
    fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.writeFileSync(path.join(root, 'var/lib/dpkg/status'), '');
  fs.writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\n');
  fs.writeFileSync(path.join(root, 'etc/gshadow'), 'root:*::\n');
  fs.writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  const v1 = buildDeb('0.1.0', work) as string;
  debs = { v1, v2: rebuildAs(v1, '0.1.1') };
}, 300_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the appliance package', () => {
  it('installs into a clean root: group, directories, unit, Node 24, the service answering', async () => {
    const fields = run('dpkg-deb', ['-f', debs.v1, 'Package', 'Version', 'Architecture', 'Depends']);
    expect(fields).toContain('Package: appliance\nVersion: 0.1.0\nArchitecture: amd64\nDepends: util-linux');
    dpkg('-i', debs.v1);
    expect(
      run('dpkg-query', [`--admindir=${root}/var/lib/dpkg`, '-W', '-f=${Status} ${Version}', 'appliance']),
    ).toBe('install ok installed 0.1.0');
    expect(fs.readFileSync(path.join(root, 'etc/group'), 'utf8')).toMatch(/^appliance:x:\d+:$/m);
    expect(fs.statSync(path.join(root, 'var/lib/appliance')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(root, 'etc/appliance')).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(root, 'usr/bin/appliance'))).toBe(true);
    expect(run(path.join(root, 'opt/appliance/node/bin/node'), ['--version'])).toMatch(/^v24\./);

    const { proc, socket } = startInstalled();
    try {
      await waitForSocket(socket);
      const admin = await call(socket, 'POST', '/setup/admin', {
        username: 'admin',
        password: 'correct horse battery',
      });
      expect(admin.status).toBe(201);
      // the web UI ships in the package: its page and the hashed script it names are served
      const index = await page(socket, '/');
      expect(index.status).toBe(200);
      expect(index.type).toContain('text/html');
      const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(index.text)?.[1];
      expect(script, `the installed UI's index.html names its script:\n${index.text}`).toBeDefined();
      const asset = await page(socket, script!);
      expect(asset.status).toBe(200);
      expect(asset.type).toContain('javascript');
    } finally {
      await stop(proc);
    }
  }, 120_000);

  it('upgrades in place to a newer build, keeping the database and settings', async () => {
    dpkg('-i', debs.v2);
    expect(
      run('dpkg-query', [`--admindir=${root}/var/lib/dpkg`, '-W', '-f=${Status} ${Version}', 'appliance']),
    ).toBe('install ok installed 0.1.1');
    expect(fs.readFileSync(path.join(root, 'etc/group'), 'utf8').match(/^appliance:/gm)).toHaveLength(1);
    const { proc, socket } = startInstalled();
    try {
      await waitForSocket(socket);
      // the admin of the first install is still there
      const again = await call(socket, 'POST', '/setup/admin', {
        username: 'admin2',
        password: 'correct horse battery',
      });
      expect(again.status).toBe(409);
    } finally {
      await stop(proc);
    }
  }, 120_000);
});
