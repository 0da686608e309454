// `appliance doctor` of the operator's CLI: handed to @appliance/doctor with the service's own
// configuration loader (the checks themselves are tested in packages/doctor and api-server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JsonReport } from '@appliance/doctor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance } from './support.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-doctor-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('appliance doctor', () => {
  it('checks the host for a --root sandbox and prints the verdicts as JSON', async () => {
    const r = await appliance(['doctor', '--root', dir, '--json']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.root).toBe(dir);
    expect(report.configFile).toBe(path.join(dir, 'etc/appliance/config.toml'));
    expect(report.checks.find((c) => c.id === 'mkfs.xfs')).toMatchObject({ required: true, status: 'ok' });
    expect(r.code).toBe(report.ok ? 0 : 1);
  });

  it('reads the configuration with the service loader: a bad file fails the check', async () => {
    const config = path.join(dir, 'bad.toml');
    fs.writeFileSync(config, '[server]\nlisten = "nowhere"\n');
    const r = await appliance(['doctor', '--config', config]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}configuration +listen must be HOST:PORT/);
  });

  it('is listed in the help and answers a usage error with exit 2', async () => {
    expect((await appliance(['--help'])).stdout).toMatch(/doctor \[options\.\.\.\] +check that this host/);
    expect((await appliance(['doctor', '--help'])).stdout).toContain('appliance doctor [--config PATH]');
    const bad = await appliance(['doctor', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage error');
  });
});
