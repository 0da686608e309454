import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHostPaths } from '@appliance/common';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParitySlot } from '../ports.ts';
import { hostSlots } from './host-slots.ts';

const slot = (mountpoint: string): ParitySlot => ({
  role: 'data',
  roleIndex: 1,
  mountpoint,
  device: '/dev/sdc',
});
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe('hostSlots', () => {
  it('lists the given slots; a slot is present when something is mounted at it', async () => {
    const slots = [slot('/'), slot('/no/such/mountpoint')];
    const reader = hostSlots(() => slots, { paths: createHostPaths(), plainDirectories: false });
    expect(reader.list()).toBe(slots);
    expect(await reader.present(slot('/'))).toBe(true);
    expect(await reader.present(slot('/no/such/mountpoint'))).toBe(false);
  });

  it('with plain directories (a sandbox), a slot is present when its directory exists under the root', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'host-slots-'));
    roots.push(root);
    fs.mkdirSync(path.join(root, 'mnt/disk1'), { recursive: true });
    fs.writeFileSync(path.join(root, 'mnt/disk2'), 'a file, not a directory');
    const reader = hostSlots(() => [], { paths: createHostPaths({ root }), plainDirectories: true });
    expect(await reader.present(slot('/mnt/disk1'))).toBe(true);
    expect(await reader.present(slot('/mnt/disk2'))).toBe(false);
    expect(await reader.present(slot('/mnt/disk3'))).toBe(false);
  });
});
