import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const withFile = (name: string, text: string): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe('loadConfig: samba (issue 24)', () => {
  it('defaults to no sandboxed smbd, port 4450', () => {
    expect(loadConfig({ root: dir }, {}).samba).toEqual({ sandbox: false, port: 4450 });
    expect(loadConfig({}, { APPLIANCE_CONFIG: withFile('empty.toml', '') }).samba).toEqual({
      sandbox: false,
      port: 4450,
    });
  });

  it('reads [samba] from the file, and APPLIANCE_SAMBA_* over it', () => {
    const config = withFile('samba.toml', `root = "${dir}"\n[samba]\nsandbox = true\nport = 44500\n`);
    expect(loadConfig({}, { APPLIANCE_CONFIG: config }).samba).toEqual({ sandbox: true, port: 44500 });
    expect(
      loadConfig(
        {},
        { APPLIANCE_CONFIG: config, APPLIANCE_SAMBA_SANDBOX: 'no', APPLIANCE_SAMBA_PORT: '4451' },
      ).samba,
    ).toEqual({ sandbox: false, port: 4451 });
    expect(loadConfig({ root: dir }, { APPLIANCE_SAMBA_SANDBOX: '1' }).samba).toEqual({
      sandbox: true,
      port: 4450,
    });
  });

  it('refuses the sandboxed smbd without a root prefix, or with a synthetic hostRoot', () => {
    expect(() => loadConfig({}, { APPLIANCE_SAMBA_SANDBOX: 'true' })).toThrow(
      new ConfigError(
        'samba.sandbox needs a root prefix (--root): on the real host the system smbd serves the shares.',
      ),
    );
    expect(() =>
      loadConfig({ root: dir }, { APPLIANCE_SAMBA_SANDBOX: 'true', APPLIANCE_HOST_ROOT: dir }),
    ).toThrow(/leave hostRoot empty/);
  });

  it('refuses a port that is not 1–65535, and unknown [samba] keys', () => {
    for (const bad of ['0', '65536', 'x', '44.5', ''])
      expect(() => loadConfig({ root: dir }, { APPLIANCE_SAMBA_PORT: bad })).toThrow(
        /APPLIANCE_SAMBA_PORT must be a port number from 1 to 65535/,
      );
    for (const text of ['[samba]\nport = 0\n', '[samba]\nport = "4450"\n', '[samba]\nshare = "x"\n'])
      expect(() => loadConfig({}, { APPLIANCE_CONFIG: withFile('bad.toml', text) })).toThrow(/samba/);
  });
});
