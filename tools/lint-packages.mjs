#!/usr/bin/env node
// The lint step's package check (tools/test.sh, after `biome ci`): every publishable workspace
// package (packages/*, tools/*; `"private": true` ones are listed and skipped) is packed with
// `pnpm pack` (which rewrites `workspace:` ranges) and its tarball must pass
//   - publint (strict: warnings fail),
//   - @arethetypeswrong/cli with the esm-only profile (the packages are ESM only, Node >= 24),
//   - no `workspace:` range left in the packed package.json,
//   - every bare import in the packed JavaScript is the package itself, a Node built-in, or a
//     declared dependency / peer dependency (a devDependency is not installed for a consumer).
// Offline: pnpm pack, publint and attw read only the tarball. Needs the packages built (dist/).
// Usage: node tools/lint-packages.mjs [package-dir …]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const attw = path.join(repo, 'node_modules', '.bin', 'attw');

function workspaceDirs() {
  const dirs = [];
  for (const parent of ['packages', 'tools']) {
    for (const name of fs.readdirSync(path.join(repo, parent)).sort()) {
      const dir = path.join(repo, parent, name);
      if (fs.existsSync(path.join(dir, 'package.json'))) dirs.push(dir);
    }
  }
  return dirs;
}

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** The package name of a bare specifier (`@scope/name/sub` → `@scope/name`), or null. */
function packageOf(spec) {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtins.has(spec))
    return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function jsFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsFiles(p));
    else if (/\.(m?js|cjs)$/.test(entry.name)) out.push(p);
  }
  return out;
}

// Statements as tsc emits them: at the start of a line (so comment text never matches).
const IMPORT =
  /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function undeclaredImports(unpacked, manifest) {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const problems = [];
  for (const file of jsFiles(unpacked)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const pkg = packageOf(m[1] ?? m[2] ?? m[3]);
      if (pkg && !declared.has(pkg))
        problems.push(`${path.relative(unpacked, file)} imports ${pkg}, not a dependency`);
    }
  }
  return problems;
}

async function check(dir, scratch) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const rel = path.relative(repo, dir);
  if (manifest.private) return { rel, name: manifest.name, skipped: true, problems: [] };
  const problems = [];
  const dest = fs.mkdtempSync(path.join(scratch, 'pack-'));
  const packed = spawnSync('pnpm', ['pack', '--pack-destination', dest], { cwd: dir, encoding: 'utf8' });
  const tarball = fs.readdirSync(dest).find((f) => f.endsWith('.tgz'));
  if (packed.status !== 0 || !tarball) {
    return { rel, name: manifest.name, problems: [`pnpm pack failed: ${packed.stderr || packed.stdout}`] };
  }
  const file = path.join(dest, tarball);

  // The tarball's own files, unpacked: publint reads exactly what a consumer would get.
  const unpacked = path.join(dest, 'unpacked');
  fs.mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', file, '-C', unpacked]);
  const lint = await publint({ pkgDir: path.join(unpacked, 'package'), pack: false, strict: true });
  for (const m of lint.messages) {
    const text = `publint ${m.type}: ${formatMessage(m, lint.pkg, { color: false }) ?? m.code}`;
    if (m.type === 'suggestion') console.log(`  ${rel}: ${text}`);
    else problems.push(text);
  }

  // Subpaths with only the workspace's source condition (test helpers) resolve for no consumer,
  // on purpose: attw would report them as unresolvable, so they are left out of its check.
  const packedExports = JSON.parse(
    fs.readFileSync(path.join(unpacked, 'package', 'package.json'), 'utf8'),
  ).exports;
  const workspaceOnly = Object.entries(packedExports ?? {})
    .filter(([, v]) => v && typeof v === 'object' && Object.keys(v).every((k) => k === '@appliance/source'))
    .map(([k]) => k);
  const exclude = workspaceOnly.length > 0 ? ['--exclude-entrypoints', ...workspaceOnly] : [];
  const types = spawnSync(
    attw,
    ['--profile', 'esm-only', ...exclude, '--format', 'table-flipped', '--no-color', file],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_UPDATE_NOTIFIER: '1' },
    },
  );
  if (types.status !== 0) problems.push(`attw:\n${types.stdout}${types.stderr}`);

  const packedManifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'package', 'package.json'), 'utf8'));
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(packedManifest[field] ?? {}))
      if (String(range).startsWith('workspace:'))
        problems.push(`${field}.${dep} is still ${range} in the tarball`);
  }
  problems.push(...undeclaredImports(path.join(unpacked, 'package'), packedManifest));
  return { rel, name: manifest.name, tarball: file, problems };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-packages-'));
try {
  const wanted = process.argv.slice(2).map((d) => path.resolve(d));
  const dirs = wanted.length > 0 ? wanted : workspaceDirs();
  const results = [];
  // Two at a time (the machine has two cores); each pack is a pnpm process.
  for (let i = 0; i < dirs.length; i += 2)
    results.push(...(await Promise.all(dirs.slice(i, i + 2).map((d) => check(d, scratch)))));
  let failed = 0;
  for (const r of results) {
    if (r.skipped) console.log(`skip  ${r.name} (${r.rel}): private, not published`);
    else if (r.problems.length === 0) console.log(`ok    ${r.name} (${r.rel}): publint, attw, dependencies`);
    else {
      failed++;
      console.log(`FAIL  ${r.name} (${r.rel}):`);
      for (const p of r.problems) console.log(`        ${p.replace(/\n/g, '\n        ')}`);
    }
  }
  const checked = results.filter((r) => !r.skipped).length;
  console.log(`lint-packages: ${checked - failed} of ${checked} publishable packages pass`);
  process.exitCode = failed > 0 ? 1 : 0;
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
