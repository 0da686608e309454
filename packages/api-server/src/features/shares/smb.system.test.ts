/**
 * Shares proven over SMB (issue 24): the real server in lab mode with its own sandboxed smbd on a
 * free loopback port, a real array of loop disks (array setup through the API: XFS, mergerfs), users
 * and access through the API, and the real smbclient as each user. What smbd serves is exactly what
 * the API grants: the matrix, the file's owner and disk, access changes within 2 s, and a share data
 * delete under an open connection. The Unix accounts the users need are real; their names are unique
 * to this run and removed in afterAll whatever happens.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { processesUsing, sessionMembers } from '@appliance/shares';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxRoot, type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { killAll, startServerProcess } from '../../../test-support/server-process.ts';
import { fingerprint, without } from '../../../test-support/share-data.ts';
import {
  type Credentials,
  createSmbClient,
  type SmbClient,
  type SmbSession,
} from '../../../test-support/smbclient.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const TAG = `${process.pid.toString(36)}${Math.random().toString(36).slice(2, 5)}`;
/** Unix accounts this file may have created (removed in afterAll). */
const unixAccounts = new Set<string>();
type Level = 'none' | 'read-only' | 'read-write';

const TOOLS = [
  'smbd',
  'smbclient',
  'smbcontrol',
  'smbpasswd',
  'pdbedit',
  'testparm',
  'setpriv',
  'useradd',
  'userdel',
  'losetup',
  'mkfs.xfs',
  'wipefs',
  'mount',
  'umount',
  'findmnt',
  'blkid',
  'mergerfs',
];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Names, sizes and modification times below the machine's own Samba directories. */
function hostSambaState(): string {
  const dirs = ['/etc/samba', '/var/lib/samba', '/var/cache/samba', '/run/samba', '/var/log/samba'];
  const lines: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      lines.push(`${dir} (absent)`);
      return;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      const st = fs.lstatSync(full);
      lines.push(`${full} ${st.mode.toString(8)} ${st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(full);
    }
  };
  for (const d of dirs) walk(d);
  return lines.join('\n');
}

/** The gid of the machine's `users` group (the group of every share account). */
async function usersGid(): Promise<number> {
  return Number((await run('getent', ['group', 'users'])).stdout.split(':')[2]);
}

async function unixUid(name: string): Promise<number | null> {
  const r = await run('getent', ['passwd', name]).catch(() => null);
  return r ? Number(r.stdout.split(':')[2]) : null;
}

describe('shares over SMB: a sandboxed smbd serves what the API grants, and nothing more', () => {
  let work: string;
  let s: Sandbox;
  let smb: SmbClient;
  let port: number;
  let hostBefore: string;
  const disks: LoopDisk[] = [];
  const user: Record<'alice' | 'bob' | 'carol', Credentials & { id: string }> = {} as never;
  let familyId: string;
  const open: SmbSession[] = [];
  const real = (logical: string) => path.join(s.root, logical);
  const dataDisks = ['/mnt/disk1', '/mnt/disk2'];
  const smbConf = () => real('/etc/appliance/samba/smb.conf');
  /** Where a file of a share is on the data disks (logical paths). */
  const onDisks = (share: string, name: string) =>
    dataDisks.map((d) => `${d}/${share}/${name}`).filter((p) => fs.existsSync(real(p)));

  const createUser = async (key: 'alice' | 'bob' | 'carol') => {
    const username = `${key}-${TAG}`;
    const password = `${key} password ${TAG}`;
    unixAccounts.add(username);
    const r = await s.call('POST', '/users', { username, password, role: 'share-only' });
    expect(r.status, r.text).toBe(201);
    user[key] = { username, password, id: r.body.id };
  };

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: TOOLS });
    hostBefore = hostSambaState();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'smb-sys-'));
    const imageDir = path.join(work, 'images');
    fs.mkdirSync(imageDir);
    port = await freePort();
    s = await startSandbox({
      lab: true,
      admin: false,
      config: { lab: { enabled: true, imageDir }, samba: { sandbox: true, port } },
    });
    // the administrator is a user with a Samba (and so a Unix) account too: a name unique to this run
    const admin = { username: `admin-${TAG}`, password: `admin password ${TAG}` };
    unixAccounts.add(admin.username);
    const setup = await s.call('POST', '/setup/admin', admin, { token: null });
    expect(setup.status, setup.text).toBe(201);
    const basic = Buffer.from(`${admin.username}:${admin.password}`).toString('base64');
    const token = await s.call(
      'POST',
      '/tokens',
      { name: 'test', role: 'admin' },
      {
        token: null,
        headers: { authorization: `Basic ${basic}` },
      },
    );
    expect(token.status, token.text).toBe(201);
    s.token = token.body.token;
    smb = createSmbClient({ port, dir: path.join(work, 'client') });

    // the array through the API: parity, two data disks (no cache: new files go to a data disk)
    for (const size of [400, 320, 320]) disks.push(await createLoopDisk({ sizeBytes: size * MiB, imageDir }));
    const members = [
      { device: disks[0]!.device, role: 'parity' },
      { device: disks[1]!.device, role: 'data' },
      { device: disks[2]!.device, role: 'data' },
    ];
    const confirmation = `ERASE ${members
      .map((m) => m.device)
      .sort()
      .join(', ')}`;
    const array = await s.call('POST', '/disks/array', { disks: members, createPolicy: 'mfs', confirmation });
    expect(array.status, array.text).toBe(201);
    expect(array.body.poolMounted).toBe(true);

    for (const key of ['alice', 'bob', 'carol'] as const) await createUser(key);
    const family = await s.call('POST', '/user-groups', { name: 'family' });
    familyId = family.body.id;
    expect((await s.call('PUT', `/user-groups/${familyId}/members`, { userIds: [user.bob.id] })).status).toBe(
      200,
    );
    for (const name of ['media', 'photos'])
      expect((await s.call('POST', '/shares', { name, cacheMode: 'array-only' })).status).toBe(201);
    const grant = await s.call('PUT', '/shares/media/permissions', {
      users: [{ userId: user.alice.id, access: 'read-write' }],
      groups: [{ groupId: familyId, access: 'read-only' }],
    });
    expect(grant.status, grant.text).toBe(200);
    // a file in each share, written on a data disk by root (root:users 0664, as a copy-in would)
    for (const share of ['media', 'photos']) {
      const file = real(`/mnt/disk1/${share}/seed.txt`);
      fs.writeFileSync(file, `the ${share} seed\n`);
      fs.chownSync(file, 0, await usersGid());
      fs.chmodSync(file, 0o664);
    }
    fs.writeFileSync(path.join(work, 'upload.txt'), 'written over SMB\n');
    await sleep(1500); // the debounced reload of the last change (the tests below measure their own)
  }, 300_000);

  afterAll(async () => {
    await smb?.closeAll().catch(() => undefined);
    if (s) await s.close({ keepRoot: true }).catch(() => undefined);
    if (s) {
      await run('umount', [real('/mnt/user')]).catch(() =>
        run('umount', ['-l', real('/mnt/user')]).catch(() => undefined),
      );
      for (const m of ['/mnt/disk2', '/mnt/disk1', '/mnt/parity1'])
        await run('umount', [real(m)]).catch(() => run('umount', ['-l', real(m)]).catch(() => undefined));
    }
    for (const d of disks) await d.destroy().catch(() => undefined);
    for (const name of unixAccounts)
      if ((await unixUid(name)) !== null) await run('userdel', [name]).catch(() => undefined);
    if (s) removeSandboxRoot(s.root);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }, 120_000);

  /** What one user gets on one share over SMB: list, read the seed, write a new file. */
  async function probe(who: Credentials, share: string, tag: string) {
    const listed = await smb.run(who, share, 'ls');
    const got = path.join(work, `got-${tag}.txt`);
    fs.rmSync(got, { force: true });
    await smb.run(who, share, `get seed.txt ${got}`);
    const read = fs.existsSync(got) && fs.readFileSync(got, 'utf8') === `the ${share} seed\n`;
    const name = `w-${tag}.txt`;
    await smb.run(who, share, `put ${path.join(work, 'upload.txt')} ${name}`);
    const written = onDisks(share, name);
    return {
      list: listed.ok && listed.output.includes('seed.txt'),
      read,
      write: written.length === 1,
      status: listed.status,
      written,
    };
  }

  const levelOf = (p: { list: boolean; read: boolean; write: boolean }): Level | 'inconsistent' =>
    p.list && p.read && p.write
      ? 'read-write'
      : p.list && p.read
        ? 'read-only'
        : !p.list && !p.read && !p.write
          ? 'none'
          : 'inconsistent';

  it('the matrix over SMB equals the API: own rows (GET /users/:id/permissions) and effective access', async () => {
    const rows: string[] = [
      '| user | share | API own row | API effective (source) | list | read | write | observed |',
    ];
    for (const key of ['alice', 'bob', 'carol'] as const) {
      const who = user[key];
      const own = await s.call('GET', `/users/${who.id}/permissions`);
      expect(own.status).toBe(200);
      for (const share of ['media', 'photos']) {
        const access = await s.call('GET', `/shares/${share}/access`);
        const effective = access.body.users.find((u: { userId: string }) => u.userId === who.id);
        const ownRow = own.body.permissions.find((p: { shareName: string }) => p.shareName === share);
        const p = await probe(who, share, `${key}-${share}`);
        const observed = levelOf(p);
        rows.push(
          `| ${key} | ${share} | ${ownRow?.access ?? '—'} | ${effective.access} (${effective.source}) | ${p.list} | ${p.read} | ${p.write} | ${observed} |`,
        );
        // what smbd serves is the API's effective access (06 §4) …
        expect(observed, `${key} on ${share}: ${JSON.stringify(p)}`).toBe(effective.access);
        // … and the user's own row, where there is one (06 §3 lists only own rows; bob's access is
        // his group's, carol has no row)
        if (ownRow) expect(observed).toBe(ownRow.access);
        else expect(effective.source).not.toBe('user');
        // a refused connection is refused at connect time, not by a listing error
        if (observed === 'none') expect(p.status).toMatch(/NT_STATUS_(ACCESS_DENIED|BAD_NETWORK_NAME)/);
      }
    }
    console.info(`SMB access matrix (port ${port})\n${rows.join('\n')}`);
    // the expected matrix of issue 24
    expect(rows.slice(1).map((r) => r.split('|').at(-2)!.trim())).toEqual([
      'read-write',
      'none',
      'read-only',
      'none',
      'none',
      'none',
    ]);
    expect((await s.call('GET', `/users/${user.alice.id}/permissions`)).body.permissions).toEqual([
      { shareName: 'media', access: 'read-write' },
    ]);
    expect((await s.call('GET', `/users/${user.bob.id}/permissions`)).body.permissions).toEqual([]);
    expect((await s.call('GET', `/users/${user.carol.id}/permissions`)).body.permissions).toEqual([]);
  }, 120_000);

  it('a closed share opened to carol: her first connection after the PUT answered gets in (issue 32)', async () => {
    // a share nobody may use (available = no), created for this test: closed to everyone
    expect((await s.call('POST', '/shares', { name: 'music', cacheMode: 'array-only' })).status).toBe(201);
    expect(fs.readFileSync(smbConf(), 'utf8')).toMatch(/\[music\][^[]*available = no/);
    await sleep(1500); // the creation's reload has run
    expect((await smb.run(user.carol, 'music', 'ls')).status).toMatch(
      /NT_STATUS_(BAD_NETWORK_NAME|ACCESS_DENIED)/,
    );
    // another change of smb.conf just before (a second closed share): its reload runs now, so a
    // debounced reload of the grant would wait up to a second — the slowest case
    expect((await s.call('POST', '/shares', { name: 'music2', cacheMode: 'array-only' })).status).toBe(201);
    const started = performance.now();
    const r = await s.call('PUT', '/shares/music/permissions', {
      users: [{ userId: user.carol.id, access: 'read-write' }],
      groups: [],
    });
    expect(r.status, r.text).toBe(200);
    const answeredIn = performance.now() - started;
    const first = await smb.run(user.carol, 'music', 'ls');
    expect(first.ok, `carol's first connection after the grant: ${first.output}`).toBe(true);
    console.info(`the grant answered in ${Math.round(answeredIn)} ms; carol's next connection got in`);
    // and the grant is the one asked for: she writes
    const put = await smb.run(user.carol, 'music', `put ${path.join(work, 'upload.txt')} w-carol-music.txt`);
    expect(put.ok, put.output).toBe(true);
    expect(onDisks('music', 'w-carol-music.txt')).toHaveLength(1);
    // closed again, so the tests below see the shares they expect
    const close = await s.call('PUT', '/shares/music/permissions', { users: [], groups: [] });
    expect(close.status).toBe(200);
  });

  it('nobody connects as a guest or without a user, to any share', async () => {
    for (const share of ['media', 'photos', 'no-such-share'])
      for (const who of ['anonymous', 'guest'] as const) {
        const r = await smb.run(who, share, 'ls');
        expect(r.ok, `${who} on ${share}: ${r.output}`).toBe(false);
        expect(r.status).toMatch(/NT_STATUS_(ACCESS_DENIED|LOGON_FAILURE|BAD_NETWORK_NAME)/);
      }
    // Samba's anonymous IPC$ session (restrict anonymous = 0, 06 §5.1 leaves it) reaches nothing:
    // no RPC service answers in the sandbox
    const ipc = await smb.run('anonymous', 'IPC$', 'ls');
    expect(ipc.ok).toBe(false);
    // a wrong password is a logon failure
    const wrong = await smb.run(
      { username: user.alice.username, password: 'not her password' },
      'media',
      'ls',
    );
    expect(wrong.status).toBe('NT_STATUS_LOGON_FAILURE');
  });

  it('a file alice writes lands on one data disk under /mnt/diskN/media, owned by her Unix account', async () => {
    const [where] = onDisks('media', 'w-alice-media.txt');
    expect(onDisks('media', 'w-alice-media.txt')).toHaveLength(1);
    expect(where).toMatch(/^\/mnt\/disk[12]\/media\/w-alice-media\.txt$/);
    const st = fs.statSync(real(where!));
    expect(st.uid).toBe(await unixUid(user.alice.username));
    expect(st.gid).toBe(await usersGid()); // users: the group of every share account
    expect(st.mode & 0o777).toBe(0o664); // create mask
    expect(fs.readFileSync(real(where!), 'utf8')).toBe('written over SMB\n');
    // the accounts are the sandbox's: its passdb lists the three users; the host's Samba is untouched
    const pdb = (await run('pdbedit', ['-L', '-s', smbConf()])).stdout;
    for (const key of ['alice', 'bob', 'carol'] as const) expect(pdb).toContain(`${user[key].username}:`);
    expect(fs.existsSync(real('/var/lib/samba/private/passdb.tdb'))).toBe(true);
    expect(hostSambaState()).toBe(hostBefore);
  });

  it('a share data delete of media while bob has it open completes; bob then lists an empty share', async () => {
    const bob = await smb.open(user.bob, 'media');
    open.push(bob);
    const before = await bob.command('ls');
    expect(before.ok, before.output).toBe(true);
    expect(before.output).toContain('seed.txt');
    expect(before.output).toContain('w-alice-media.txt');
    // a subdirectory with a file, so the delete has a tree to remove
    fs.mkdirSync(real('/mnt/disk2/media/album'), { recursive: true });
    fs.writeFileSync(real('/mnt/disk2/media/album/track.flac'), 'x'.repeat(4096));
    const mediaBranches = ['disk1/media', 'disk2/media'];
    const outside = () => without(fingerprint(real('/mnt')), [...mediaBranches, 'user']);
    const elsewhere = outside();
    expect([...elsewhere.keys()]).toContain('disk1/photos/seed.txt');

    const r = await s.call('POST', '/shares/media/data/delete', { confirmation: 'media' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.totals.filesDeleted).toBe(3); // seed.txt, alice's file, album/track.flac
    expect(r.body.branches.map((b: { status: string }) => b.status)).toEqual(['ok', 'ok']);

    const after = await bob.command('ls');
    expect(after.ok, after.output).toBe(true);
    const entries = after.output
      .split('\n')
      .map((l) => /^ {2}(\S.*?)\s+[A-Z]*\s+\d+\s+\w{3} \w{3}/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined);
    expect(entries.sort()).toEqual(['.', '..']);
    // the share stays (definition, access, branch directories); nothing outside it changed
    for (const b of mediaBranches) expect(fs.readdirSync(real(`/mnt/${b}`))).toEqual([]);
    expect(outside()).toEqual(elsewhere);
    expect((await smb.run(user.alice, 'media', 'ls')).ok).toBe(true);
  }, 120_000);

  it('PUT /shares/media/permissions without alice: her next connection is refused within 2 s', async () => {
    const aliceOpen = await smb.open(user.alice, 'media');
    open.push(aliceOpen);
    const bob = open[0]!;
    expect((await smb.run(user.alice, 'media', 'ls')).ok).toBe(true);
    // another access change just before: its reload runs now, so the next one waits for the
    // debounce (at most one reload a second) — the slowest case of the 2 s
    const before = await s.call('PUT', '/shares/photos/permissions', {
      users: [{ userId: user.alice.id, access: 'read-only' }],
      groups: [],
    });
    expect(before.status).toBe(200);
    const r = await s.call('PUT', '/shares/media/permissions', {
      users: [],
      groups: [{ groupId: familyId, access: 'read-only' }],
    });
    expect(r.status).toBe(200);
    const answeredAt = performance.now();
    let refusedAfter: number | null = null;
    while (performance.now() - answeredAt < 2000) {
      const startedAt = performance.now();
      const attempt = await smb.run(user.alice, 'media', 'ls');
      if (!attempt.ok) {
        expect(attempt.status).toBe('NT_STATUS_ACCESS_DENIED');
        refusedAfter = startedAt - answeredAt;
        break;
      }
    }
    expect(refusedAfter, 'a connection started within 2 s of the answer was refused').not.toBeNull();
    console.info(
      `alice refused ${Math.round(refusedAfter!)} ms after the PUT answered (a reload ran just before)`,
    );
    // every later connection is refused as well
    expect((await smb.run(user.alice, 'media', 'ls')).status).toBe('NT_STATUS_ACCESS_DENIED');
    // her connection opened before the change is closed (close-denied-share after the reload) …
    let cut = await aliceOpen.command('ls');
    while (cut.ok && performance.now() - answeredAt < 2000) {
      await sleep(50);
      cut = await aliceOpen.command('ls');
    }
    expect(cut.status).toBe('NT_STATUS_NETWORK_NAME_DELETED');
    console.info(
      `alice's open connection closed ${Math.round(performance.now() - answeredAt)} ms after the answer`,
    );
    // … while bob, still allowed, keeps his
    expect((await bob.command('ls')).ok).toBe(true);
  });

  it('deleting bob removes his SMB access, his open connection, his Samba and Unix accounts', async () => {
    const bob = open[0]!;
    expect((await smb.run(user.bob, 'media', 'ls')).ok).toBe(true);
    const r = await s.call('DELETE', `/users/${user.bob.id}`);
    expect(r.status).toBe(204);
    expect((await smb.run(user.bob, 'media', 'ls')).status).toBe('NT_STATUS_LOGON_FAILURE');
    expect(await unixUid(user.bob.username)).toBeNull();
    expect((await run('pdbedit', ['-L', '-s', smbConf()])).stdout).not.toContain(`${user.bob.username}:`);
    // his connection opened before is over by the time the delete answers: the adapter ends the
    // sessions smbstatus lists for him (and any smbd still running as his uid) before userdel
    expect((await bob.command('ls')).status).toBe('NT_STATUS_CONNECTION_DISCONNECTED');
  });

  it("changing carol's password: the old one fails, the new one works", async () => {
    const old = user.carol.password;
    const fresh = `carol new password ${TAG}`;
    // carol has no access to any share: a right password passes the logon and is refused at the
    // share (ACCESS_DENIED, or BAD_NETWORK_NAME for a closed share), a wrong one fails the logon
    const refusedAtShare = /^NT_STATUS_(ACCESS_DENIED|BAD_NETWORK_NAME)$/;
    expect((await smb.run(user.carol, 'media', 'ls')).status).toMatch(refusedAtShare);
    const r = await s.call('PATCH', `/users/${user.carol.id}`, { password: fresh });
    expect(r.status).toBe(200);
    expect((await smb.run({ username: user.carol.username, password: old }, 'media', 'ls')).status).toBe(
      'NT_STATUS_LOGON_FAILURE',
    );
    expect((await smb.run({ username: user.carol.username, password: fresh }, 'media', 'ls')).status).toMatch(
      refusedAtShare,
    );
    // and with a grant she connects with it (within 2 s), never with the old one
    const grant = await s.call('PUT', `/users/${user.carol.id}/permissions`, {
      permissions: [{ shareName: 'photos', access: 'read-only' }],
    });
    expect(grant.status).toBe(200);
    const answeredAt = performance.now();
    let listed = await smb.run({ username: user.carol.username, password: fresh }, 'photos', 'ls');
    while (!listed.ok && performance.now() - answeredAt < 2000) {
      await sleep(50);
      listed = await smb.run({ username: user.carol.username, password: fresh }, 'photos', 'ls');
    }
    expect(listed.ok, listed.output).toBe(true);
    expect(listed.output).toContain('seed.txt');
    expect((await smb.run({ username: user.carol.username, password: old }, 'photos', 'ls')).status).toBe(
      'NT_STATUS_LOGON_FAILURE',
    );
  });

  it('stopping the service stops smbd and every Samba process; the machine’s Samba was never touched', async () => {
    const pid = Number(fs.readFileSync(real('/run/samba/smbd.pid'), 'utf8').trim());
    expect(processesUsing(smbConf())).toContain(pid);
    expect(sessionMembers(pid).length).toBeGreaterThan(1); // helpers and the open connections' processes
    await s.close({ keepRoot: true });
    expect(sessionMembers(pid)).toEqual([]);
    expect(processesUsing(smbConf())).toEqual([]);
    expect(hostSambaState()).toBe(hostBefore);
  });
});

describe('the sandboxed smbd never outlives its service', () => {
  let root: string;
  afterAll(async () => {
    await killAll();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('a SIGKILL of the service ends smbd and its children', async () => {
    await requirePrerequisites({ root: true, tools: ['smbd', 'setpriv', 'testparm'] });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'smb-kill-'));
    const port = await freePort();
    const server = await startServerProcess({
      root,
      socket: path.join(root, 'run/appliance/appliance.sock'),
      env: { APPLIANCE_SAMBA_SANDBOX: '1', APPLIANCE_SAMBA_PORT: String(port), APPLIANCE_LAB_ENABLED: '0' },
    });
    const conf = path.join(root, 'etc/appliance/samba/smb.conf');
    const pid = Number(fs.readFileSync(path.join(root, 'run/samba/smbd.pid'), 'utf8').trim());
    expect(processesUsing(conf)).toContain(pid);
    // the service alone gets SIGKILL (no cleanup code of it runs)
    process.kill(server.pid, 'SIGKILL');
    const end = Date.now() + 10_000;
    while ((sessionMembers(pid).length > 0 || processesUsing(conf).length > 0) && Date.now() < end)
      await sleep(50);
    expect(sessionMembers(pid)).toEqual([]);
    expect(processesUsing(conf)).toEqual([]);
  }, 60_000);
});
