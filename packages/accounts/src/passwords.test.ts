import type { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { HashQueue, Passwords, SCRYPT } from './passwords.ts';

describe('Passwords', () => {
  it('hashes in the $scrypt$ format with the 08 §2 parameters by default and verifies', async () => {
    expect(SCRYPT).toEqual({ ln: 17, r: 8, p: 1, keyLen: 64, saltLen: 16, maxmem: 256 * 1024 * 1024 });
    const p = new Passwords(new HashQueue(), { ...SCRYPT, ln: 4 });
    const h = await p.hash('correct horse');
    expect(h).toMatch(/^\$scrypt\$ln=4,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{86}$/);
    expect(await p.verify('correct horse', h)).toBe(true);
    expect(await p.verify('wrong', h)).toBe(false);
    expect(await p.verify('anything', null)).toBe(false);
    expect(await p.verify('anything', 'not a hash')).toBe(false);
  });

  it('runs at most `concurrency` hashes; past `maxWaiting` waiting it refuses with too_busy', async () => {
    const q = new HashQueue(1, 1);
    let release!: () => void;
    const first = q.run(() => new Promise<void>((r) => (release = r)));
    const second = q.run(async () => 'second');
    const third = q.run(async () => 'third').catch((e: Refusal) => e.code);
    expect(await third).toBe('too_busy');
    release();
    await first;
    expect(await second).toBe('second');
  });
});
