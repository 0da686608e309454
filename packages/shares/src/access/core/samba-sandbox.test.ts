import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSmbConf } from './render-smb-conf.ts';
import { SAMBA_DIRS, sambaSandboxGlobals, sambaSandboxLayout, sambaSandboxProblem } from './samba-sandbox.ts';

const layoutAt = (root: string, port = 4450) =>
  sambaSandboxLayout({
    real: (logical) => path.join(root, logical),
    smbConf: path.join(root, 'etc/appliance/samba/smb.conf'),
    poolDir: path.join(root, 'mnt/user'),
    port,
  });

describe('the sandboxed Samba layout (issue 24)', () => {
  it("puts Debian's Samba directories and smbd's pid file under the root", () => {
    const layout = layoutAt('/srv/sbx');
    expect(layout.dirs).toEqual({
      private: '/srv/sbx/var/lib/samba/private',
      state: '/srv/sbx/var/lib/samba',
      cache: '/srv/sbx/var/cache/samba',
      lock: '/srv/sbx/run/samba',
      pid: '/srv/sbx/run/samba',
      ncalrpc: '/srv/sbx/run/samba/ncalrpc',
      log: '/srv/sbx/var/log/samba',
    });
    expect(layout.pidFile).toBe('/srv/sbx/run/samba/smbd.pid');
    expect(Object.keys(layout.dirs).sort()).toEqual(Object.keys(SAMBA_DIRS).sort());
  });

  it('adds the loopback port and the directories to [global], before the shares', () => {
    const conf = renderSmbConf(
      {
        shares: [{ name: 'media', smb: { enabled: true, browseable: true } }],
        users: [],
        groups: [],
        userGrants: [],
        groupGrants: [],
      },
      { poolDir: '/srv/sbx/mnt/user', globals: sambaSandboxGlobals(layoutAt('/srv/sbx', 44512)) },
    );
    expect(conf).toBe(`[global]
   server role = standalone server
   workgroup = WORKGROUP
   security = user
   map to guest = never
   passdb backend = tdbsam
   load printers = no
   smb ports = 44512
   bind interfaces only = yes
   interfaces = lo
   disable netbios = yes
   private dir = /srv/sbx/var/lib/samba/private
   state directory = /srv/sbx/var/lib/samba
   cache directory = /srv/sbx/var/cache/samba
   lock directory = /srv/sbx/run/samba
   pid directory = /srv/sbx/run/samba
   ncalrpc dir = /srv/sbx/run/samba/ncalrpc
   log file = /srv/sbx/var/log/samba/log.%m
   max log size = 1000
   rpc start on demand helpers = no

[media]
   path = /srv/sbx/mnt/user/media
   browseable = yes
   available = no
`);
  });

  it('accepts an ordinary root and port', () => {
    expect(sambaSandboxProblem(layoutAt('/tmp/appliance-sbx-AbC123'))).toBeNull();
    expect(sambaSandboxProblem(layoutAt('/tmp/x', 1))).toBeNull();
    expect(sambaSandboxProblem(layoutAt('/tmp/x', 65535))).toBeNull();
  });

  it('refuses a port outside 1–65535', () => {
    for (const port of [0, -1, 65536, 1.5, Number.NaN])
      expect(sambaSandboxProblem(layoutAt('/tmp/x', port))).toMatch(/port must be a number from 1 to 65535/);
  });

  it("refuses a root too long for Samba's Unix sockets", () => {
    const longest = `/${'r'.repeat(107 - '/run/samba/ncalrpc/np/protected_storage'.length - 1)}`;
    expect(sambaSandboxProblem(layoutAt(longest))).toBeNull();
    expect(sambaSandboxProblem(layoutAt(`${longest}x`))).toMatch(/too long for Samba's sockets/);
  });

  it('refuses a root smb.conf cannot carry', () => {
    for (const root of ['/tmp/a%b', '/tmp/a\nb', '/tmp/a\rb'])
      expect(sambaSandboxProblem(layoutAt(root))).toMatch(/cannot be written into smb.conf/);
  });
});
