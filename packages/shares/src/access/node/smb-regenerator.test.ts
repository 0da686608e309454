import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError, createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessSnapshot } from '../core/effective-access.ts';
import { createSmbRegenerator } from './smb-regenerator.ts';

let dir: string;
beforeAll(async () => {
  await requirePrerequisites({ tools: ['testparm'] });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'smbregen-'));
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const snapshotWith = (level: 'read-only' | 'read-write'): AccessSnapshot => ({
  shares: [{ name: 'media', smb: { enabled: true, browseable: true } }],
  users: [{ id: 'a', username: 'alice' }],
  groups: [],
  userGrants: [{ shareName: 'media', userId: 'a', access: level }],
  groupGrants: [],
});

describe('createSmbRegenerator', () => {
  it('shares one run among the requests of one turn', async () => {
    const file = path.join(dir, 'same-turn', 'smb.conf');
    let loads = 0;
    const regen = createSmbRegenerator({
      file,
      poolDir: '/mnt/user',
      runner: createCommandRunner(),
      loadSnapshot: () => {
        loads += 1;
        return snapshotWith('read-write');
      },
    });
    const outcomes = await Promise.all(Array.from({ length: 32 }, () => regen.regenerate()));
    expect(outcomes).toEqual(Array(32).fill('written'));
    expect(loads).toBe(1);
  });

  it('coalesces 20 concurrent requests into at most two runs, each answered by a later run', async () => {
    const file = path.join(dir, 'coalesce', 'smb.conf');
    let loads = 0;
    let current: AccessSnapshot = snapshotWith('read-only');
    const regen = createSmbRegenerator({
      file,
      poolDir: '/mnt/user',
      runner: createCommandRunner(),
      loadSnapshot: () => {
        loads += 1;
        return current;
      },
    });
    const first = regen.regenerate();
    await new Promise((r) => setImmediate(r));
    expect(loads).toBe(1);
    // Committed after the first run started: these must see the new rows.
    current = snapshotWith('read-write');
    const rest = Array.from({ length: 20 }, () => regen.regenerate());
    expect(await first).toBe('written');
    await Promise.all(rest);
    expect(loads).toBe(2);
    expect(await fs.readFile(file, 'utf8')).toContain('   write list = alice\n');
    await regen.idle();
  });

  it('includes smb.custom.conf only when it exists beside smb.conf', async () => {
    const file = path.join(dir, 'include', 'smb.conf');
    const regen = createSmbRegenerator({
      file,
      poolDir: '/mnt/user',
      runner: createCommandRunner(),
      loadSnapshot: () => snapshotWith('read-only'),
    });
    await regen.regenerate();
    expect(await fs.readFile(file, 'utf8')).not.toContain('include');
    const custom = path.join(dir, 'include', 'smb.custom.conf');
    await fs.writeFile(custom, '[global]\n   server string = my nas\n');
    expect(await regen.regenerate()).toBe('written');
    expect(await fs.readFile(file, 'utf8')).toContain(`   include = ${custom}\n`);
  });

  it('leaves the file as it was when reading the rows fails', async () => {
    const file = path.join(dir, 'readfail', 'smb.conf');
    let fail = false;
    let written = 0;
    const regen = createSmbRegenerator({
      file,
      poolDir: '/mnt/user',
      runner: createCommandRunner(),
      onWritten: () => {
        written += 1;
      },
      loadSnapshot: () => {
        if (fail) throw new Error('SQLITE_IOERR');
        return snapshotWith('read-only');
      },
    });
    await regen.regenerate();
    const before = await fs.readFile(file, 'utf8');
    fail = true;
    const err = await regen.regenerate().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('smb_regeneration_failed');
    expect(await fs.readFile(file, 'utf8')).toBe(before);
    expect(written).toBe(1);
  });
});
