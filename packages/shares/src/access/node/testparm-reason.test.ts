// A testparm refusal is logged with a reason a person can act on (issue 32): what testparm said,
// and always its exit status — a refusal with no output no longer logs an empty reason.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner } from '@appliance/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testparmReason, validateSmbConf } from './smb-conf-writer.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testparm-reason-'));
  fs.writeFileSync(path.join(dir, 'smb.conf'), '[global]\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A `testparm` on the runner's PATH that runs `body` (a shell script). */
function testparmThat(body: string) {
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  fs.writeFileSync(path.join(bin, 'testparm'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return createCommandRunner({ path: `${bin}:/usr/bin:/bin` });
}

async function logged(body: string): Promise<{ lines: string[]; error: unknown }> {
  const lines: string[] = [];
  const error = await validateSmbConf(testparmThat(body), path.join(dir, 'smb.conf'), {
    log: (m) => lines.push(m),
  }).then(
    () => null,
    (e: unknown) => e,
  );
  return { lines, error };
}

describe('a testparm refusal in the log', () => {
  it('says the exit status when testparm printed nothing', async () => {
    const { lines, error } = await logged('exit 3');
    expect(error).toMatchObject({ status: 500, code: 'smb_regeneration_failed' });
    expect(lines).toEqual(['testparm refused the generated smb.conf: exit status 3, no output']);
  });

  it('says what testparm said, and how it ended', async () => {
    const { lines } = await logged(`echo "Unknown parameter encountered: \\"bogus\\"" >&2; exit 1`);
    expect(lines).toEqual([
      'testparm refused the generated smb.conf: Unknown parameter encountered: "bogus" (exit status 1)',
    ]);
  });

  it('says a timeout', () => {
    expect(testparmReason({ exitCode: -1, timedOut: true, stdout: '', stderr: '' })).toBe(
      'timed out, no output',
    );
  });
});
