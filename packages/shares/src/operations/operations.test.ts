/**
 * The share operations over in-memory ports (test-support/share-store.ts) and real directories
 * under a temporary root: what each writes, audits and regenerates, and what a refusal leaves.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHostPaths, type HostPaths, isRefusal, refuse } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyShareState, memorySharePorts } from '../test-support/share-store.ts';
import { createShare, deleteShare, updateShare } from './share-definitions.ts';
import { effectiveShareAccess, setSharePermissions } from './share-permissions.ts';

const ALICE = '0b7c7f9e-0000-4000-8000-00000000000a';
const disks = [
  { role: 'data' as const, mountpoint: '/mnt/disk1', removalState: null },
  { role: 'cache' as const, mountpoint: '/mnt/cache', removalState: null },
];
let root: string;
let paths: HostPaths;

beforeAll(async () => {
  await requirePrerequisites({ root: true });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'share-ops-'));
  paths = createHostPaths({ root });
  for (const d of ['mnt/disk1', 'mnt/cache']) await fs.mkdir(path.join(root, d), { recursive: true });
});
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

const refusalCode = (err: unknown) => (isRefusal(err) ? err.code : String(err));

describe('share definitions', () => {
  it('create makes the branch directories, saves, audits and regenerates once', async () => {
    const ports = memorySharePorts({ paths, state: emptyShareState(disks) });
    const share = await createShare(ports, { name: 'media', cacheMode: 'array-only' });
    expect(share).toMatchObject({ name: 'media', cacheMode: 'array-only', smb: { enabled: true } });
    expect((await fs.stat(path.join(root, 'mnt/disk1/media'))).isDirectory()).toBe(true);
    expect(ports.state.shares.map((s) => s.name)).toEqual(['media']);
    expect(ports.state.audit).toEqual([
      expect.objectContaining({ id: 1, operation: 'share.create', target: 'media' }),
    ]);
    expect(ports.regenerations()).toBe(1);
  });

  it('a refused create writes nothing: no row, no audit, no regeneration', async () => {
    const ports = memorySharePorts({ paths, state: emptyShareState([]) });
    const err = await createShare(ports, { name: 'films' }).catch((e: unknown) => e);
    expect(refusalCode(err)).toBe('no_array');
    expect(ports.state.shares).toEqual([]);
    expect(ports.state.audit).toEqual([]);
    expect(ports.regenerations()).toBe(0);
  });

  it('a failed regeneration keeps the change, marks its audit row partial and rejects', async () => {
    const ports = memorySharePorts({
      paths,
      state: emptyShareState(disks),
      regenerate: () => Promise.reject(refuse('smb_regeneration_failed', 'testparm refused the file')),
    });
    const err = await createShare(ports, { name: 'docs', cacheMode: 'array-only' }).catch((e: unknown) => e);
    expect(refusalCode(err)).toBe('smb_regeneration_failed');
    expect(ports.state.shares.map((s) => s.name)).toEqual(['docs']);
    expect(ports.state.audit).toEqual([
      expect.objectContaining({ operation: 'share.create', outcome: 'partial' }),
    ]);
  });

  it('update replaces the settings; delete is refused while a data delete runs, then removes the grants', async () => {
    let busy = true;
    const state = emptyShareState(disks);
    state.users.push({ id: ALICE, username: 'alice' });
    const ports = memorySharePorts({ paths, state, busy: () => busy });
    await createShare(ports, { name: 'tv', cacheMode: 'array-only' });
    const next = await updateShare(ports, 'tv', {
      cacheMode: 'cache-only',
      createPolicy: 'mfs',
      smb: { enabled: true, browseable: false },
    });
    expect(next).toMatchObject({ cacheMode: 'cache-only', smb: { browseable: false } });
    await setSharePermissions(ports, 'tv', { users: [{ userId: ALICE, access: 'read-write' }], groups: [] });
    expect(effectiveShareAccess(ports, 'tv').users).toEqual([
      expect.objectContaining({ userId: ALICE, access: 'read-write' }),
    ]);
    expect(refusalCode(await deleteShare(ports, 'tv').catch((e: unknown) => e))).toBe('share_busy');
    expect(ports.state.shares).toHaveLength(1);
    busy = false;
    await deleteShare(ports, 'tv');
    expect(ports.state.shares).toEqual([]);
    expect(ports.state.userGrants).toEqual([]);
    expect(ports.state.audit.map((a) => a.operation)).toEqual([
      'share.create',
      'share.update',
      'share_permissions.update',
      'share.delete',
    ]);
    expect(ports.regenerations()).toBe(4);
  });
});
