/**
 * A private apt world for tests: a `file:` repository built with dpkg-deb and indexed with
 * dpkg-scanpackages, and an apt configuration (`APT_CONFIG`) whose `Dir`, dpkg status and
 * `DPkg::Options` (`--root`, `--admindir`) all point into a temporary root. Nothing touches this
 * machine's dpkg database or /etc/apt. Maintainer scripts run without chroot
 * (`--force-script-chrootless`): the test packages' scripts only print and exit.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface AptLab {
  dir: string;
  /** The installation root apt and dpkg work on. */
  root: string;
  /** Pass as `APT_CONFIG`. */
  aptConfig: string;
  /** Builds `<name>_<version>_all.deb` into the repository and re-indexes it. */
  publish(name: string, version: string, options?: { failingPostinst?: boolean }): Promise<void>;
  /** Removes a version from the repository and re-indexes it. */
  unpublish(name: string, version: string): Promise<void>;
  /** apt-get with the lab's configuration. */
  aptGet(...args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** The version dpkg records as installed in the lab root, or null. */
  installed(name: string): Promise<string | null>;
  /** The file the package installs, read in the lab root. */
  payload(name: string): string | null;
  destroy(): Promise<void>;
}

export async function createAptLab(): Promise<AptLab> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-lab-'));
  const root = path.join(dir, 'root');
  const repo = path.join(dir, 'repo');
  for (const d of [
    'var/lib/dpkg/updates',
    'var/lib/dpkg/info',
    'etc/apt/sources.list.d',
    'etc/apt/apt.conf.d',
    'etc/apt/preferences.d',
    'etc/apt/trusted.gpg.d',
    'var/lib/apt/lists/partial',
    'var/cache/apt/archives/partial',
    'var/log/apt',
  ])
    fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.mkdirSync(repo);
  fs.writeFileSync(path.join(root, 'var/lib/dpkg/status'), '');
  fs.writeFileSync(path.join(root, 'etc/apt/sources.list'), `deb [trusted=yes] file:${repo} ./\n`);
  const aptConfig = path.join(dir, 'apt.conf');
  fs.writeFileSync(
    aptConfig,
    [
      `Dir "${root}/";`,
      `Dir::State::status "${root}/var/lib/dpkg/status";`,
      `DPkg::Options { "--root=${root}"; "--admindir=${root}/var/lib/dpkg"; "--force-script-chrootless"; "--log=${root}/var/log/dpkg.log"; };`,
      'Debug::NoLocking "true";',
      'APT::Sandbox::User "root";',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, APT_CONFIG: aptConfig, DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' };
  const index = () => run('sh', ['-c', 'dpkg-scanpackages -m . /dev/null > Packages'], { cwd: repo, env });
  const lab: AptLab = {
    dir,
    root,
    aptConfig,
    async publish(name, version, options = {}) {
      const build = path.join(dir, 'build', `${name}-${version}`);
      fs.mkdirSync(path.join(build, 'DEBIAN'), { recursive: true });
      fs.mkdirSync(path.join(build, 'usr/share', name), { recursive: true });
      fs.writeFileSync(path.join(build, 'usr/share', name, 'version'), `${version}\n`);
      fs.writeFileSync(
        path.join(build, 'DEBIAN/control'),
        `Package: ${name}\nVersion: ${version}\nArchitecture: all\nMaintainer: Test <test@example.invalid>\nDescription: a test package\n`,
      );
      if (options.failingPostinst)
        fs.writeFileSync(
          path.join(build, 'DEBIAN/postinst'),
          '#!/bin/sh\necho "postinst failing on purpose" >&2\nexit 1\n',
          { mode: 0o755 },
        );
      await run(
        'dpkg-deb',
        ['--root-owner-group', '-b', build, path.join(repo, `${name}_${version}_all.deb`)],
        {
          env,
        },
      );
      await index();
    },
    async unpublish(name, version) {
      fs.rmSync(path.join(repo, `${name}_${version}_all.deb`), { force: true });
      await index();
    },
    aptGet: (...args) => run('apt-get', args, { env }),
    async installed(name) {
      const r = await run(
        'dpkg-query',
        [`--admindir=${root}/var/lib/dpkg`, '-W', '-f=${Status} ${Version}', name],
        {
          env,
        },
      ).catch(() => null);
      if (!r) return null;
      const m = /install ok \S+ (\S+)/.exec(r.stdout);
      return m?.[1] ?? null;
    },
    payload(name) {
      try {
        return fs.readFileSync(path.join(root, 'usr/share', name, 'version'), 'utf8').trim();
      } catch {
        return null;
      }
    },
    async destroy() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return lab;
}
