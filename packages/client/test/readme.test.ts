/**
 * The README's examples are these tests: every ```ts block runs (in order, in one sandbox) as a
 * program importing `@appliance/client`, and what it prints must be the ```text block under it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Sandbox, startSandbox, setUpArray } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PKG = path.join(import.meta.dirname, '..');

export function examples(markdown: string): Array<{ code: string; output: string }> {
  const blocks = [...markdown.matchAll(/```(ts|text)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
  }));
  const out: Array<{ code: string; output: string }> = [];
  blocks.forEach((b, i) => {
    if (b.lang !== 'ts') return;
    const next = blocks[i + 1];
    if (next?.lang !== 'text') throw new Error(`README example ${out.length + 1} has no output block`);
    out.push({ code: b.body, output: next.body });
  });
  return out;
}

let s: Sandbox;
beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
  await setUpArray(s); // the share examples need an array
});
afterAll(async () => {
  await s?.close();
});

describe('README examples', () => {
  const list = examples(fs.readFileSync(path.join(PKG, 'README.md'), 'utf8'));
  it('has examples', () => expect(list.length).toBeGreaterThanOrEqual(4));
  list.forEach((example, i) => {
    it(`example ${i + 1} prints what the README shows`, async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=@appliance/source', '--input-type=module-typescript', '-e', example.code],
        {
          cwd: PKG,
          env: {
            PATH: process.env['PATH'] ?? '',
            APPLIANCE_SOCKET: s.socket,
            APPLIANCE_URL: s.url,
            APPLIANCE_TOKEN: s.token,
            SCRATCH: s.root,
          },
        },
      );
      expect(stdout).toBe(example.output);
    });
  });
});
