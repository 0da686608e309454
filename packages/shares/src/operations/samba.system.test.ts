/**
 * The share operations with a real smb.conf, without the server: in-memory ports, the Samba
 * service of this package (regenerator and testparm, mode `none`: no smbd signalled), real branch
 * directories under a temporary root.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, createHostPaths, type HostPaths } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyShareState, memoryShareStore, memorySharePorts } from '../test-support/share-store.ts';
import { createSambaService, regenerateAndSettle, renderSmbConfAt, startSamba } from './samba-service.ts';
import { createShare, deleteShare } from './share-definitions.ts';
import { setSharePermissions } from './share-permissions.ts';

const ALICE = '0b7c7f9e-0000-4000-8000-00000000000a';
const BOB = '0b7c7f9e-0000-4000-8000-00000000000b';
let root: string;
let paths: HostPaths;

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['testparm'] });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'share-samba-'));
  paths = createHostPaths({ root });
  await fs.mkdir(path.join(root, 'mnt/disk1'), { recursive: true });
});
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('shares and smb.conf without the server', () => {
  it('a share, its grants and its deletion reach smb.conf, validated by testparm', async () => {
    const state = emptyShareState([{ role: 'data', mountpoint: '/mnt/disk1', removalState: null }]);
    state.users.push({ id: ALICE, username: 'alice' }, { id: BOB, username: 'bob' });
    const file = paths.sambaConf;
    const generated: string[] = [];
    const options = {
      mode: 'none' as const,
      layout: null,
      runner: createCommandRunner(),
      file,
      poolDir: '/mnt/user',
      root,
      loadSnapshot: () => memoryShareStore(state).snapshot(),
      log: () => undefined,
    };
    const samba = createSambaService(options);
    await startSamba(samba, { file, generated: () => generated.push('start'), log: options.log });
    const ports = memorySharePorts({
      paths,
      state,
      regenerate: regenerateAndSettle(samba, () => generated.push('change')),
    });
    try {
      await createShare(ports, { name: 'media', cacheMode: 'array-only' });
      await setSharePermissions(ports, 'media', {
        users: [
          { userId: ALICE, access: 'read-write' },
          { userId: BOB, access: 'read-only' },
        ],
        groups: [],
      });
      const conf = await fs.readFile(file, 'utf8');
      expect(conf).toMatch(/\[media\][^[]*path = \/mnt\/user\/media/);
      expect(conf).toMatch(/valid users = alice bob/);
      expect(conf).toMatch(/write list = alice/);
      // what a config import validates is the same text
      expect(renderSmbConfAt(memoryShareStore(state).snapshot(), { file, poolDir: '/mnt/user' })).toBe(conf);
      await deleteShare(ports, 'media');
      expect(await fs.readFile(file, 'utf8')).not.toMatch(/\[media\]/);
      expect(generated).toEqual(['start', 'change', 'change', 'change']);
    } finally {
      await samba.stop();
    }
  });
});
