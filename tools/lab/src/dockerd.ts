import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PrivateDockerd {
  /** `unix://…/docker.sock`, for DOCKER_HOST. */
  host: string;
  socket: string;
  dir: string;
  /** Name of an image holding busybox (imported from busybox-static; nothing is pulled). */
  busyboxImage: string;
  /** Runs the docker CLI against this daemon. */
  docker(args: string[]): Promise<{ stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/**
 * Starts a private dockerd (own data-root, exec-root and socket, no bridge, no iptables) so tests
 * never touch another daemon. Root required. Stop it in teardown.
 */
export async function startPrivateDockerd(options: { dir?: string } = {}): Promise<PrivateDockerd> {
  const dir = options.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-dockerd-')));
  // exec-root and the socket path must stay short (unix socket path limit).
  const short = await fs.mkdtemp('/tmp/apd-');
  const socket = path.join(short, 'docker.sock');
  const host = `unix://${socket}`;
  const log = await fs.open(path.join(dir, 'dockerd.log'), 'a');
  const child: ChildProcess = spawn(
    'dockerd',
    [
      '--bridge=none',
      '--iptables=false',
      '--ip6tables=false',
      `--data-root=${path.join(dir, 'data')}`,
      `--exec-root=${path.join(short, 'exec')}`,
      `--pidfile=${path.join(short, 'dockerd.pid')}`,
      `-H`,
      host,
    ],
    { stdio: ['ignore', log.fd, log.fd], detached: false },
  );
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const docker = async (args: string[]) => {
    const r = await run('docker', ['-H', host, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { stdout: r.stdout, stderr: r.stderr };
  };
  const stop = async () => {
    if (!exited) {
      // Docker keeps a user-defined network's bridge in the host's network namespace after the
      // daemon stops; with the data-root deleted nothing would ever remove it, and after about 30
      // runs the default address pools are used up ("could not find an available, non-overlapping
      // IPv4 address pool"). So containers and networks go first, while the daemon still answers.
      const ids = (await docker(['ps', '-aq']).catch(() => ({ stdout: '' }))).stdout
        .split('\n')
        .filter(Boolean);
      if (ids.length > 0) await docker(['rm', '-f', ...ids]).catch(() => undefined);
      await docker(['network', 'prune', '-f']).catch(() => undefined);
      child.kill('SIGTERM');
      const end = Date.now() + 20_000;
      while (!exited && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      if (!exited) child.kill('SIGKILL');
    }
    await log.close().catch(() => undefined);
    await fs.rm(short, { recursive: true, force: true });
    // The data-root (image layers) goes too, unless the caller supplied the directory.
    if (!options.dir) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    const end = Date.now() + 60_000;
    for (;;) {
      if (exited) throw new Error(`dockerd exited; see ${path.join(dir, 'dockerd.log')}`);
      const ok = await docker(['version', '--format', '{{.Server.Version}}']).then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (Date.now() > end) throw new Error('dockerd did not answer within 60 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    const busyboxImage = 'appliance-lab/busybox:latest';
    await importBusybox(dir, host, busyboxImage);
    return { host, socket, dir, busyboxImage, docker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function importBusybox(dir: string, host: string, image: string): Promise<void> {
  const rootfs = path.join(dir, 'busybox-rootfs');
  await fs.mkdir(path.join(rootfs, 'bin'), { recursive: true });
  await fs.copyFile('/bin/busybox', path.join(rootfs, 'bin', 'busybox'));
  await fs.chmod(path.join(rootfs, 'bin', 'busybox'), 0o755);
  for (const app of ['sh', 'sleep', 'true', 'cat', 'echo', 'ls', 'httpd', 'nc']) {
    await fs.symlink('busybox', path.join(rootfs, 'bin', app)).catch(() => undefined);
  }
  const tarFile = path.join(dir, 'busybox-rootfs.tar');
  await run('tar', ['-C', rootfs, '-cf', tarFile, '.']);
  await run('docker', ['-H', host, 'import', '--change', 'CMD ["/bin/sh"]', tarFile, image]);
}
