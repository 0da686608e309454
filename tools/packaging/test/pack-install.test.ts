// Every publishable package as a consumer gets it: `tools/pack-release.mjs` packs them all with
// `pnpm pack` (workspace: ranges rewritten), then for each package a scratch project outside the
// workspace installs its tarball with npm — its @appliance/* dependencies from the other tarballs
// (npm overrides, so no registry is asked for them), third-party ones from the npm registry or
// npm's cache — and runs the first ```ts block of the package's README there with Node 24.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
/**
 * Packages whose README's first ```ts block is a runnable example (kept so by this test). A
 * publishable package added later and not listed here is still packed and installed, and its main
 * entry imported, until its README gets a runnable first example and it joins the list.
 */
const RUNNABLE_README = new Set([
  '@appliance/accounts',
  '@appliance/api-server',
  '@appliance/archive-preview',
  '@appliance/array-planner',
  '@appliance/backups',
  '@appliance/common',
  '@appliance/doctor',
  '@appliance/external-disk',
  '@appliance/fs-at',
  '@appliance/notify-routing',
  '@appliance/shares',
  '@appliance/template-installer',
  '@appliance/watchers',
]);
let release: string;
let tarballs: Record<string, string>;
const scratches: string[] = [];

/**
 * The first ```ts fenced block of a README, or the block right after a
 * `<!-- runs from the installed package -->` line when the README marks one (its first example
 * may need what a tarball does not ship: the package's source-only test support, root, host tools).
 */
export function firstTsBlock(markdown: string): string | null {
  const marked = /^<!-- runs from the installed package -->\n+```ts\n([\s\S]*?)^```$/m.exec(markdown);
  if (marked) return marked[1]!;
  const m = /^```ts\n([\s\S]*?)^```$/m.exec(markdown);
  return m ? m[1]! : null;
}

interface Manifest {
  name: string;
  private?: boolean;
  exports?: Record<string, unknown>;
}

function packageDirs(): Array<{ name: string; dir: string; manifest: Manifest }> {
  const parent = path.join(repo, 'packages');
  return fs
    .readdirSync(parent)
    .sort()
    .map((d) => path.join(parent, d))
    .filter((d) => fs.existsSync(path.join(d, 'package.json')))
    .map((dir) => ({
      dir,
      manifest: JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest,
    }))
    .filter((p) => !p.manifest.private)
    .map((p) => ({ name: p.manifest.name, dir: p.dir, manifest: p.manifest }));
}

beforeAll(() => {
  release = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-release-'));
  const r = spawnSync(process.execPath, [path.join(repo, 'tools', 'pack-release.mjs'), release], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`pack-release failed:\n${r.stdout}${r.stderr}`);
  const manifest = JSON.parse(fs.readFileSync(path.join(release, 'package.json'), 'utf8'));
  tarballs = Object.fromEntries(
    Object.entries(manifest.dependencies as Record<string, string>).map(([name, spec]) => [
      name,
      `file:${path.join(release, spec.replace(/^file:\.\//, ''))}`,
    ]),
  );
}, 300_000);

afterAll(() => {
  for (const d of [release, ...scratches]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

/** The file list and the packed package.json of a package's tarball in the release directory. */
function tarball(name: string): { files: string[]; manifest: Manifest & { bin?: Record<string, string> } } {
  const file = tarballs[name]!.replace(/^file:/, '');
  const list = spawnSync('tar', ['-tzf', file], { encoding: 'utf8' });
  expect(list.status, list.stderr).toBe(0);
  const manifest = spawnSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' });
  expect(manifest.status, manifest.stderr).toBe(0);
  return { files: list.stdout.split('\n').filter(Boolean), manifest: JSON.parse(manifest.stdout) };
}

describe('what the tarballs hold', () => {
  it('one program per command name: `appliance` is the operator CLI, the service launcher is `appliance-server`', () => {
    const owners: Record<string, string[]> = {};
    for (const { name } of packageDirs())
      for (const bin of Object.keys(tarball(name).manifest.bin ?? {}))
        owners[bin] = [...(owners[bin] ?? []), name];
    expect(owners).toEqual({
      appliance: ['@appliance/cli'],
      'appliance-server': ['@appliance/api-server'],
    });
    expect(tarball('@appliance/api-server').files).toContain('package/bin/appliance-server');
  });

  it('no package ships test support: no sandbox, reliability suite, test-support, fixtures or tests', () => {
    const testSupport = /\/(testing|reliability|test-support)\/|test-support\.|test-fixture\.|\.test\.[jt]s/;
    for (const { name } of packageDirs())
      expect(
        tarball(name).files.filter((f) => testSupport.test(f)),
        name,
      ).toEqual([]);
    // Nor does api-server's published manifest offer its workspace-only ./testing entry.
    expect(Object.keys(tarball('@appliance/api-server').manifest.exports ?? {})).toEqual(['.']);
  });
});

describe('packed packages, installed outside the workspace', () => {
  it('packs every publishable package, into one release directory', () => {
    expect(Object.keys(tarballs).sort()).toEqual(packageDirs().map((p) => p.name));
  });

  for (const { name, dir, manifest } of packageDirs()) {
    const runsReadme = RUNNABLE_README.has(name);
    const what = runsReadme ? "its README's first example runs" : 'it installs and its main entry imports';
    it(`${name}: ${what} from the installed tarball`, () => {
      const hasMain = manifest.exports?.['.'] !== undefined;
      const example = runsReadme
        ? firstTsBlock(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'))
        : hasMain
          ? `await import(${JSON.stringify(name)});\n`
          : 'export {};\n';
      expect(example, `${name}'s README has no ts block`).not.toBeNull();
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-consumer-'));
      scratches.push(scratch);
      fs.writeFileSync(
        path.join(scratch, 'package.json'),
        JSON.stringify({
          private: true,
          type: 'module',
          dependencies: { [name]: tarballs[name] },
          overrides: tarballs,
        }),
      );
      const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
      const install = spawnSync('npm', ['install', '--omit=dev', '--no-audit', '--prefer-offline'], {
        cwd: scratch,
        encoding: 'utf8',
        env,
        timeout: 300_000,
      });
      expect(install.status, `npm install of ${name}:\n${install.stdout}${install.stderr}`).toBe(0);

      const installed = path.join(scratch, 'node_modules', ...name.split('/'));
      expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
      const packed = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
      expect(JSON.stringify(packed.dependencies ?? {})).not.toContain('workspace:');

      fs.writeFileSync(path.join(scratch, 'example.mts'), example!);
      const run = spawnSync(process.execPath, ['example.mts'], {
        cwd: scratch,
        encoding: 'utf8',
        env,
        timeout: 120_000,
      });
      expect(run.status, `the example of ${name} failed:\n${run.stdout}${run.stderr}`).toBe(0);
    }, 600_000);
  }
});
