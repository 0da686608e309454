// The test tasks run under turbo's strict environment: what the toolchain needs (the registry's
// certificate, the npm cache and pnpm store CI made cold, the temp dir) must reach them, and npm run
// under Node 24 must trust the registry the way provisioning did. Both once failed silently: the
// packaging test then used a developer's warm ~/.npm and stayed green while a cold install failed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const npm = (args: string[]) =>
  spawnSync('npm', args, { encoding: 'utf8', env: process.env, timeout: 60_000 }).stdout.trim();

/** `key=value` of an npmrc file (ini; comments and blank lines ignored). */
function npmrcValue(file: string, key: string): string | null {
  if (!fs.existsSync(file)) return null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([^#;=\s]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m?.[1] === key) return m[2]!;
  }
  return null;
}

describe('the toolchain environment of the test tasks', () => {
  it('has every toolchain variable the test command had (turbo passes them through)', () => {
    const names = (process.env.APPLIANCE_TOOLCHAIN_ENV ?? '').split(',').filter(Boolean);
    if (process.env.APPLIANCE_CI_COLD === '1') expect(names).toContain('npm_config_cache'); // .ci/run sets it
    const missing = names.filter((n) => !process.env[n]);
    expect(missing, 'variables the test command set but the test task did not receive').toEqual([]);
  });

  it('npm uses the npm cache the test command chose', () => {
    const wanted = process.env.npm_config_cache;
    if (process.env.APPLIANCE_CI_COLD === '1') expect(wanted, '.ci/run sets a cold npm cache').toBeTruthy();
    if (wanted) expect(path.resolve(npm(['config', 'get', 'cache']))).toBe(path.resolve(wanted));
  });

  it("npm under this Node has the system npm's registry settings (its CA file)", () => {
    // The system npm's global config (Debian: /usr/etc/npmrc); Node 24's npm reads <node>/etc/npmrc.
    const system = '/usr/etc/npmrc';
    const mine = path.join(path.dirname(path.dirname(process.execPath)), 'etc', 'npmrc');
    const cafile = npmrcValue(system, 'cafile');
    if (cafile === null) return expect(npmrcValue(mine, 'cafile')).toBeNull();
    expect(npmrcValue(mine, 'cafile')).toBe(cafile);
    expect(npm(['config', 'get', 'cafile'])).toBe(cafile);
  });
});
