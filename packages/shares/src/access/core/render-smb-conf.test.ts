import { describe, expect, it } from 'vitest';
import type { AccessSnapshot } from './effective-access.ts';
import { renderSmbConf, smbConfStructureKey } from './render-smb-conf.ts';

const on = { enabled: true, browseable: true };

const snapshot: AccessSnapshot = {
  shares: [
    { name: 'media', smb: on },
    { name: 'backups', smb: on },
    { name: 'Archive', smb: { enabled: true, browseable: false } },
    { name: 'hidden', smb: { enabled: false, browseable: true } },
  ],
  users: [
    { id: 'a', username: 'Alice' },
    { id: 'b', username: 'bob' },
    { id: 'c', username: 'carol' },
  ],
  groups: [{ id: 'family', memberUserIds: ['b', 'c'] }],
  userGrants: [
    { shareName: 'media', userId: 'a', access: 'read-write' },
    { shareName: 'media', userId: 'c', access: 'none' },
    { shareName: 'Archive', userId: 'b', access: 'read-only' },
    { shareName: 'hidden', userId: 'b', access: 'read-write' },
  ],
  groupGrants: [{ shareName: 'media', groupId: 'family', access: 'read-only' }],
};

const EXPECTED = `[global]
   server role = standalone server
   workgroup = WORKGROUP
   security = user
   map to guest = never
   passdb backend = tdbsam
   load printers = no

[Archive]
   path = /mnt/user/Archive
   browseable = no
   read only = yes
   valid users = bob
   create mask = 0664
   directory mask = 0775

[backups]
   path = /mnt/user/backups
   browseable = yes
   available = no

[media]
   path = /mnt/user/media
   browseable = yes
   read only = yes
   valid users = alice bob
   write list = alice
   create mask = 0664
   directory mask = 0775
`;

describe('renderSmbConf (06 §5.1)', () => {
  it('renders the exact file: sections by lowercase name, closed shares, no disabled share', () => {
    expect(renderSmbConf(snapshot)).toBe(EXPECTED);
  });

  it('is deterministic whatever the row order', () => {
    const shuffled: AccessSnapshot = {
      shares: [...snapshot.shares].reverse(),
      users: [...snapshot.users].reverse(),
      groups: snapshot.groups,
      userGrants: [...snapshot.userGrants].reverse(),
      groupGrants: snapshot.groupGrants,
    };
    expect(renderSmbConf(shuffled)).toBe(EXPECTED);
  });

  it('adds the include line only when given, and uses the host pool directory', () => {
    const text = renderSmbConf(snapshot, {
      poolDir: '/tmp/sbx/mnt/user/',
      includeFile: '/tmp/sbx/etc/appliance/samba/smb.custom.conf',
    });
    expect(text).toContain(
      '   load printers = no\n   include = /tmp/sbx/etc/appliance/samba/smb.custom.conf\n\n[Archive]',
    );
    expect(text).toContain('   path = /tmp/sbx/mnt/user/media\n');
  });

  it('renders only the global section without shares', () => {
    expect(renderSmbConf({ ...snapshot, shares: [] })).toBe(
      EXPECTED.slice(0, EXPECTED.indexOf('\n[Archive]')),
    );
  });

  it('never opens a share to a user whose own row is none', () => {
    const text = renderSmbConf({
      ...snapshot,
      userGrants: [{ shareName: 'media', userId: 'b', access: 'none' }],
      groupGrants: [{ shareName: 'media', groupId: 'family', access: 'read-write' }],
    });
    const media = text.slice(text.indexOf('[media]'));
    expect(media).toContain('valid users = carol\n   write list = carol\n');
  });
});

describe('smbConfStructureKey', () => {
  it('is equal when only the user lists differ, different when a line appears', () => {
    const a = renderSmbConf(snapshot);
    const b = renderSmbConf({
      ...snapshot,
      userGrants: snapshot.userGrants.map((g) =>
        g.shareName === 'media' && g.userId === 'a' ? { ...g, userId: 'b', access: 'read-write' } : g,
      ),
    });
    expect(b).not.toBe(a);
    expect(smbConfStructureKey(b)).toBe(smbConfStructureKey(a));
    const closed = renderSmbConf({ ...snapshot, userGrants: [], groupGrants: [] });
    expect(smbConfStructureKey(closed)).not.toBe(smbConfStructureKey(a));
  });
});
