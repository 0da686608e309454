import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MachineKeyError, createSealer, loadOrCreateMachineKey, machineKeyCheck } from './machine-key.ts';

describe('machine key and sealing', () => {
  it('creates the key 0600 only when neither key nor database exists', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mk-'));
    const file = path.join(dir, 'etc', 'secret.key');
    expect(() => loadOrCreateMachineKey(file, true)).toThrow(MachineKeyError);
    const { key, created } = loadOrCreateMachineKey(file, false);
    expect(created).toBe(true);
    expect(key).toHaveLength(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateMachineKey(file, true).key.equals(key)).toBe(true);
    fs.rmSync(dir, { recursive: true });
  });

  it('seals with AES-256-GCM and detects tampering and another key', () => {
    const k1 = Buffer.alloc(32, 1);
    const s1 = createSealer(k1);
    const sealed = s1.seal('hunter2 secret');
    expect(sealed.includes(Buffer.from('hunter2'))).toBe(false);
    expect(s1.unsealText(sealed)).toBe('hunter2 secret');
    expect(s1.seal('x').equals(s1.seal('x'))).toBe(false);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => s1.unseal(tampered)).toThrow();
    expect(() => createSealer(Buffer.alloc(32, 2)).unseal(sealed)).toThrow();
    expect(machineKeyCheck(k1)).toMatch(/^[0-9a-f]{64}$/);
    expect(machineKeyCheck(k1)).not.toBe(machineKeyCheck(Buffer.alloc(32, 2)));
  });
});
