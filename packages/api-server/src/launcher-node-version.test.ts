// bin/appliance-server under an older Node: one sentence and exit 1, not a SyntaxError with the
// minified bundle's source line. Debian 12's own Node (20, /usr/bin/node) is the older Node here.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const launcher = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/appliance-server');
const OLD_NODE = '/usr/bin/node';

function run(node: string, args: string[], cwd?: string) {
  return spawnSync(launcher, args, {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'], APPLIANCE_NODE: node },
    ...(cwd ? { cwd } : {}),
  });
}

describe('appliance-server under an older Node', () => {
  it('says Node 24 or later is required, with the version found, and exits 1', () => {
    expect(fs.existsSync(OLD_NODE), `${OLD_NODE} (Debian's nodejs, Node 20) is a prerequisite`).toBe(true);
    const old = spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    expect(Number(old.split('.')[0]), `${OLD_NODE} is Node ${old}, not an older one`).toBeLessThan(24);
    for (const cwd of [undefined, path.dirname(launcher), '/']) {
      const r = run(OLD_NODE, ['--listen', '127.0.0.1:0'], cwd);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `appliance-server: Node 24 or later is required (found ${old}, ${OLD_NODE}): point APPLIANCE_NODE at a Node 24 binary (docs/install.md, "Node 24").\n`,
      );
    }
  });

  it('starts as before under Node 24 (the check lets it through)', () => {
    const r = run(process.execPath, ['--help']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^appliance-server — runs the storage appliance admin service\n/);
    expect(r.status).toBe(0);
  });
});
