#!/usr/bin/env node
// Packs every publishable package (packages/*, not "private") with `pnpm pack` into OUTDIR and
// writes OUTDIR/package.json naming each tarball as a dependency and as an override, so that
// `npm install --omit=dev` in OUTDIR installs the whole service from these files: every
// @appliance/* dependency, direct or not, is the local tarball (npm never asks a registry for one)
// and only third-party packages come from the npm registry or npm's cache.
// docs/install.md uses it; the pack-install test installs the same way.
// Needs the packages built (pnpm exec turbo run build). Usage: node tools/pack-release.mjs OUTDIR
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Directories of the publishable packages under packages/. */
export function publishableDirs() {
  const parent = path.join(repo, 'packages');
  return fs
    .readdirSync(parent)
    .sort()
    .map((name) => path.join(parent, name))
    .filter((dir) => {
      const file = path.join(dir, 'package.json');
      return fs.existsSync(file) && !JSON.parse(fs.readFileSync(file, 'utf8')).private;
    });
}

/** Packs the packages into `outDir`; returns { name: tarball file name }. */
export function packRelease(outDir, dirs = publishableDirs()) {
  fs.mkdirSync(outDir, { recursive: true });
  const tarballs = {};
  for (const dir of dirs) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    if (!fs.existsSync(path.join(dir, 'dist'))) throw new Error(`${manifest.name} is not built (no dist/)`);
    const r = spawnSync('pnpm', ['pack', '--pack-destination', outDir], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`pnpm pack failed in ${dir}: ${r.stderr || r.stdout}`);
    const file = `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`;
    if (!fs.existsSync(path.join(outDir, file)))
      throw new Error(`pnpm pack did not write ${file} into ${outDir}`);
    tarballs[manifest.name] = file;
  }
  const deps = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:./${file}`]));
  const manifest = {
    name: 'appliance-release',
    private: true,
    description: 'The appliance service, installed from its package tarballs (docs/install.md).',
    dependencies: deps,
    overrides: deps,
  };
  fs.writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return tarballs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node tools/pack-release.mjs OUTDIR');
    process.exit(2);
  }
  const tarballs = packRelease(path.resolve(out));
  for (const [name, file] of Object.entries(tarballs)) console.log(`${name}\t${file}`);
  console.log(`wrote ${path.resolve(out)}/package.json: cd there and run npm install --omit=dev`);
}
