#!/usr/bin/env node
// Builds the appliance's Debian package: /opt/appliance/node (this Node 24 binary),
// /opt/appliance/app (every publishable package from tools/pack-release.mjs, npm-installed with
// --omit=dev), the systemd unit in /lib/systemd/system, /usr/bin/appliance, and the maintainer
// scripts of tools/deb/ (group, directories, enable/start, restart on upgrade). Built with
// dpkg-deb. Needs the packages built (pnpm exec turbo run build) and npm (the registry or its cache).
// Usage: node tools/build-deb.mjs VERSION OUTDIR  → OUTDIR/appliance_VERSION_amd64.deb
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packRelease } from './pack-release.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const DEPENDS = ['util-linux', 'mount', 'passwd', 'openssl', 'ca-certificates'];
const RECOMMENDS = [
  'mergerfs',
  'snapraid',
  'samba',
  'samba-common-bin',
  'parted',
  'xfsprogs',
  'e2fsprogs',
  'smartmontools',
  'docker.io',
  'docker-compose',
  'age',
  'zstd',
  'restic',
  'rsync',
];

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Builds the package; returns the .deb's path. `node` is the Node binary shipped (default: this one). */
export function buildDeb(version, outDir, options = {}) {
  if (!/^[0-9][A-Za-z0-9.+~-]*$/.test(version)) throw new Error(`not a Debian version: ${version}`);
  const node = options.node ?? process.execPath;
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-deb-'));
  try {
    const app = path.join(stage, 'opt/appliance/app');
    packRelease(app);
    run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      env: { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` },
    });
    fs.mkdirSync(path.join(stage, 'opt/appliance/node/bin'), { recursive: true });
    fs.copyFileSync(node, path.join(stage, 'opt/appliance/node/bin/node'));
    fs.chmodSync(path.join(stage, 'opt/appliance/node/bin/node'), 0o755);
    const unitDir = path.join(stage, 'lib/systemd/system');
    fs.mkdirSync(unitDir, { recursive: true });
    fs.copyFileSync(
      path.join(repo, 'packages/api-server/systemd/appliance.service'),
      path.join(unitDir, 'appliance.service'),
    );
    fs.mkdirSync(path.join(stage, 'usr/bin'), { recursive: true });
    fs.writeFileSync(
      path.join(stage, 'usr/bin/appliance'),
      '#!/bin/sh\n# The appliance command with the service\'s Node (the appliance package).\nAPPLIANCE_NODE=/opt/appliance/node/bin/node exec /opt/appliance/app/node_modules/@appliance/cli/bin/appliance "$@"\n',
      { mode: 0o755 },
    );
    const debian = path.join(stage, 'DEBIAN');
    fs.mkdirSync(debian);
    for (const script of ['postinst', 'prerm', 'postrm']) {
      fs.copyFileSync(path.join(repo, 'tools/deb', script), path.join(debian, script));
      fs.chmodSync(path.join(debian, script), 0o755);
    }
    const sizeKb = Number(run('du', ['-sk', '--exclude=DEBIAN', stage]).split('\t')[0]);
    fs.writeFileSync(
      path.join(debian, 'control'),
      [
        'Package: appliance',
        `Version: ${version}`,
        'Architecture: amd64',
        'Section: admin',
        'Priority: optional',
        'Maintainer: Appliance maintainers <appliance@example.invalid>',
        `Installed-Size: ${sizeKb}`,
        `Depends: ${DEPENDS.join(', ')}`,
        `Recommends: ${RECOMMENDS.join(', ')}`,
        'Description: storage appliance admin service',
        ' The admin service of a home storage appliance (disks pooled with mergerfs, SnapRAID parity,',
        ' Samba shares, Docker Compose apps): an HTTP JSON API, the appliance command, the systemd unit.',
        '',
      ].join('\n'),
    );
    fs.mkdirSync(outDir, { recursive: true });
    const deb = path.join(path.resolve(outDir), `appliance_${version}_amd64.deb`);
    // gzip at level 1: the Node binary dominates, and xz would take minutes
    run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', stage, deb]);
    return deb;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [version, out] = process.argv.slice(2);
  if (!version || !out) {
    console.error('usage: node tools/build-deb.mjs VERSION OUTDIR');
    process.exit(2);
  }
  console.log(buildDeb(version, out));
}
