import { describe, expect, it } from 'vitest';
import { createHostPaths } from './host-paths.ts';

describe('createHostPaths', () => {
  it('maps logical paths under the root prefix and back', () => {
    const p = createHostPaths({ root: '/tmp/sbx' });
    expect(p.database).toBe('/tmp/sbx/var/lib/appliance/state.db');
    expect(p.real('/mnt/disk1')).toBe('/tmp/sbx/mnt/disk1');
    expect(p.logical('/tmp/sbx/mnt/disk1/x')).toBe('/mnt/disk1/x');
    expect(p.logical('/etc/passwd')).toBeNull();
  });
  it('uses the real host without a root', () => {
    const p = createHostPaths();
    expect(p.socket).toBe('/run/appliance/appliance.sock');
    expect(p.logical('/mnt/disk1')).toBe('/mnt/disk1');
  });
  it('refuses relative paths and traversal', () => {
    const p = createHostPaths({ root: '/tmp/sbx' });
    expect(() => p.real('mnt/disk1')).toThrow();
    expect(() => p.real('/mnt/../etc/passwd')).toThrow(/escapes/);
    expect(() => p.real('/mnt/\0x')).toThrow();
  });
  it('reads host facts from the host root, which tests may point at a synthetic tree', () => {
    expect(createHostPaths({ root: '/tmp/sbx' }).sysClassBlock).toBe('/sys/class/block');
    expect(createHostPaths({ root: '/tmp/sbx', hostRoot: '/tmp/sbx' }).etcGroup).toBe('/tmp/sbx/etc/group');
  });
});
