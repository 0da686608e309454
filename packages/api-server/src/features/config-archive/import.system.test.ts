/**
 * `POST /config/import` through the real server (08 §14): a round trip from box A to box B with
 * real SQLite files, real archives, real age and real testparm; without a passphrase; refusals that
 * write nothing; a failure injected at each step that leaves the box exactly as before; the import
 * lock against other writes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { importBody, multipart, previewBody } from '@appliance/archive-preview/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../test-support/sandbox.ts';
import { createGroup, createUser, seedArray } from '../../../test-support/shares.ts';
import { rawRequest, type Target, treeListing } from '../../../test-support/config-archive.ts';

const PASS = 'correct horse battery staple';
const testparm = (() => {
  try {
    execFileSync('testparm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Box A: accounts, shares with access, a channel with a secret, routing, settings, files, a stack. */
async function configureA(a: Sandbox): Promise<void> {
  seedArray(a);
  fs.mkdirSync(path.join(a.root, 'etc/appliance/samba'), { recursive: true });
  fs.writeFileSync(
    path.join(a.root, 'etc/appliance/samba/smb.custom.conf'),
    '[global]\n  server string = A\n',
  );
  const ok = (r: { status: number; text: string }, status = 200) => expect(r.status, r.text).toBe(status);
  ok(
    await a.call('PUT', '/settings', {
      hostname: 'nas-a',
      timezone: 'Europe/Berlin',
      backupPassphrase: PASS,
    }),
  );
  const alice = await createUser(a, 'alice', 'viewer', 'alice password');
  const bob = await createUser(a, 'bob');
  const family = await createGroup(a, 'family', [alice, bob]);
  ok(await a.call('POST', '/shares', { name: 'media' }), 201);
  ok(await a.call('POST', '/shares', { name: 'photos', smb: { enabled: true, browseable: false } }), 201);
  ok(
    await a.call('PUT', '/shares/media/permissions', {
      users: [{ userId: alice, access: 'read-write' }],
      groups: [{ groupId: family, access: 'read-only' }],
    }),
  );
  const ch = await a.call('POST', '/notifications/channels', {
    name: 'hook',
    type: 'webhook',
    enabled: true,
    webhookUrl: 'http://127.0.0.1:9/hook',
    webhookAuthHeaderName: 'X-Token',
    secret: 'channel secret',
  });
  ok(ch, 201);
  ok(
    await a.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'critical',
      channelIds: [ch.body.id],
    }),
  );
  // A stack as the template installer leaves it: files, a .env with generated secrets, the row.
  const env = 'WEBUI_PORT=8080\nDB_PASSWORD=0123456789abcdef0123456789abcdef0123456789abcdef\n';
  const dir = path.join(a.root, 'var/lib/appliance/stacks/web');
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'docker-compose.yml'), 'services:\n  web:\n    image: busybox\n', {
    mode: 0o644,
  });
  fs.writeFileSync(path.join(dir, 'meta.json'), '{"template":"porty"}\n', { mode: 0o644 });
  fs.writeFileSync(path.join(dir, '.env'), env, { mode: 0o600 });
  a.server.ctx.sqlite
    .prepare(
      "insert into stacks (name, template_source, template_id, template_revision, compose, env, installed_at, manually_edited, pending) values ('web', 'lab', 'porty', 1, 'services: {}', ?, ?, 0, 0)",
    )
    .run(a.server.ctx.sealer.seal(env), new Date().toISOString());
  fs.mkdirSync(path.join(a.root, 'var/lib/appliance/catalog/lab/porty'), { recursive: true });
  fs.writeFileSync(path.join(a.root, 'var/lib/appliance/catalog/lab/porty/compose.yaml'), 'services: {}\n');
}

async function exportOf(s: Sandbox): Promise<Buffer> {
  const r = await rawRequest({ socket: s.socket }, 'POST', '/config/export', Buffer.alloc(0));
  expect(r.status).toBe(200);
  return r.body;
}

const importTo = (target: Target, archive: Buffer, o: Parameters<typeof importBody>[1]) => {
  const b = importBody(archive, o);
  return rawRequest(target, 'POST', '/config/import', b.body, { 'content-type': b.contentType });
};

/** Tables compared between two boxes after a round trip (the live history is each box's own). */
const configTables = (s: Sandbox) => {
  const dump = JSON.parse(s.dumpDatabase()) as Record<string, string[]>;
  // history and this machine's runtime state (the watchers': conditions, SMART values, what the
  // service wrote to its generated files) are never restored
  for (const t of [
    'audit_log',
    'notify_alerts',
    'notify_deliveries',
    'watcher_conditions',
    'smart_readings',
    'generated_files',
  ])
    delete dump[t];
  return dump;
};

/** The box as a whole: the database and the file tree (the temp root excluded). */
const snapshot = (s: Sandbox) => ({
  db: s.dumpDatabase(),
  tree: treeListing(s.root, [path.join(s.root, 'var/lib/appliance/tmp')]),
});

describe('config import through the real server', () => {
  let a: Sandbox;
  let archive: Buffer;
  const boxes: Sandbox[] = [];
  const fresh = async () => {
    const s = await startSandbox();
    boxes.push(s);
    return s;
  };

  beforeAll(async () => {
    a = await startSandbox();
    boxes.push(a);
    await configureA(a);
    archive = await exportOf(a);
  });
  afterAll(async () => {
    for (const s of boxes) await s.close();
  });

  it('round trip A → B: rows, .env, smb.conf and a second export that previews clean against A', async () => {
    const b = await fresh();
    await createUser(b, 'carol');
    fs.writeFileSync(path.join(b.root, 'etc/appliance/other.custom.conf'), 'b\n');
    const oldToken = b.token;

    const events: string[] = [];
    const stream = await fetch(`${b.url}/api/v1/events`, { headers: { authorization: `Bearer ${b.token}` } });
    const reader = stream.body!.getReader();
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        events.push(Buffer.from(value!).toString());
      }
    })();

    const r = await importTo({ socket: b.socket }, archive, {
      confirmation: 'RESTORE nas-a',
      passphrase: PASS,
    });
    expect(r.status, r.body.toString()).toBe(200);
    const body = r.json();
    expect(body.preImportArchive).toMatch(
      /^\/var\/lib\/appliance\/backups\/pre-import-\d{8}T\d{6}Z\.tar\.zst$/,
    );
    expect(fs.statSync(path.join(b.root, body.preImportArchive)).mode & 0o777).toBe(0o600);
    expect(body.schemaUpgrade).toBe(false);
    expect(body.secrets).toEqual({ status: 'opened', identity: 'opened', stacks: [] });
    expect(body.notes.map((n: { code: string }) => n.code)).toEqual(['tokens_replaced', 'array_degraded']);

    // B's configuration is A's (the array's device paths included: nothing was mapped).
    expect(configTables(b)).toEqual(configTables(a));
    // the files the import wrote are what the service wrote: the drift watcher sees no drift
    expect(b.server.ctx.generated.list().map((f) => f.path)).toEqual([
      '/etc/appliance/samba/smb.conf',
      '/var/lib/appliance/stacks/web/docker-compose.yml',
    ]);
    await b.server.ctx.watchers.runOnce('drift');
    expect(b.server.ctx.conditions.holding()).toEqual([]);
    expect(fs.readFileSync(path.join(b.root, 'etc/appliance/secret.key'))).toEqual(
      fs.readFileSync(path.join(a.root, 'etc/appliance/secret.key')),
    );
    const envB = path.join(b.root, 'var/lib/appliance/stacks/web/.env');
    expect(fs.readFileSync(envB)).toEqual(
      fs.readFileSync(path.join(a.root, 'var/lib/appliance/stacks/web/.env')),
    );
    expect(fs.statSync(envB).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(b.root, 'etc/appliance/other.custom.conf'))).toBe(false);
    expect(
      fs.readFileSync(path.join(b.root, 'var/lib/appliance/catalog/lab/porty/compose.yaml'), 'utf8'),
    ).toBe('services: {}\n');
    // smb.conf: what A's grants, rendered for B's paths; testparm accepts it.
    const smb = (s: Sandbox) =>
      fs.readFileSync(path.join(s.root, 'etc/appliance/samba/smb.conf'), 'utf8').replaceAll(s.root, '<root>');
    expect(smb(b)).toBe(smb(a));
    if (testparm)
      execFileSync('testparm', ['-s', path.join(b.root, 'etc/appliance/samba/smb.conf')], { stdio: 'pipe' });

    // Accounts and tokens are A's: A's token works on B, B's old one does not.
    expect((await b.call('GET', '/users', undefined, { token: a.token })).status).toBe(200);
    expect((await b.call('GET', '/users', undefined, { token: oldToken })).status).toBe(401);
    // The secrets open under the adopted key.
    const channel = b.server.ctx.sqlite.prepare('select secret from notify_channels').get() as {
      secret: Buffer;
    };
    expect(b.server.ctx.sealer.unsealText(channel.secret)).toBe('channel secret');
    // One audit row, progress events for every step and a final done.
    const audit = await b.call('GET', '/audit', undefined, { token: a.token });
    expect(audit.body.entries[0]).toMatchObject({
      operation: 'config.import',
      target: 'nas-a',
      outcome: 'ok',
    });
    await new Promise((res) => setTimeout(res, 200));
    const progress = events
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.includes('config.import'))
      .map((l) => JSON.parse(l.slice(6)));
    expect(progress.map((p) => p.progress.step ?? (p.done ? 'done' : '?'))).toEqual([
      'pre_import_archive',
      'prepare_database',
      'swap_files',
      'regenerate_samba',
      'commit',
      'done',
    ]);
    await reader.cancel().catch(() => undefined);

    // A second export from B previews against A with no differences.
    const again = await exportOf(b);
    const pb = previewBody(again);
    const p2 = await rawRequest({ socket: a.socket }, 'POST', '/config/import/preview', pb.body, {
      'content-type': pb.contentType,
    });
    expect(p2.status).toBe(200);
    expect(p2.json().blockers).toEqual([]);
    const sizes = (p2.json().groups as { added: unknown[]; changed: unknown[]; removed: unknown[] }[]).map(
      (g) => g.added.length + g.changed.length + g.removed.length,
    );
    expect(sizes).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('without the passphrase: secrets cleared, no .env restored, and the response says which', async () => {
    const c = await startSandbox({ admin: false });
    boxes.push(c);
    const r = await importTo({ socket: c.socket }, archive, { confirmation: 'RESTORE nas-a' });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.json().secrets).toEqual({ status: 'no_passphrase', identity: 'no_passphrase', stacks: ['web'] });
    const row = c.server.ctx.sqlite.prepare('select secret from notify_channels').get() as {
      secret: Buffer | null;
    };
    expect(row.secret).toBe(null);
    const settings = await c.call('GET', '/settings', undefined, { token: a.token });
    expect(settings.body).toMatchObject({ hostname: 'nas-a', backupPassphraseSet: false });
    expect(fs.existsSync(path.join(c.root, 'var/lib/appliance/stacks/web/.env'))).toBe(false);
    expect(fs.existsSync(path.join(c.root, 'var/lib/appliance/stacks/web/docker-compose.yml'))).toBe(true);
    // Before setup the import is served on the socket only; afterwards the archive's admin exists.
    expect((await c.call('GET', '/setup/status', undefined, { token: null })).body).toEqual({
      setupRequired: false,
    });
  });

  it('on TCP: admin only, and not before setup', async () => {
    const d = await startSandbox({ admin: false });
    boxes.push(d);
    const r = await importTo({ url: d.url, token: null }, archive, { confirmation: 'RESTORE nas-a' });
    expect([r.status, r.json().code]).toEqual([409, 'setup_required']);
    const e = await fresh();
    expect((await importTo({ url: e.url, token: null }, archive, { confirmation: 'x' })).status).toBe(401);
  });

  it('every refusal writes nothing', async () => {
    const b = await fresh();
    const before = snapshot(b);
    const foreignArray = await fresh();
    seedArray(foreignArray);
    const cases: [Sandbox, Parameters<typeof importBody>[1], number, string][] = [
      [b, { confirmation: 'RESTORE nas-b', passphrase: PASS }, 409, 'confirmation_required'],
      // missing or empty: 409 naming the phrase, like every typed confirmation (issue 25: it was 400)
      [b, { passphrase: PASS }, 409, 'confirmation_required'],
      [b, { confirmation: '', passphrase: PASS }, 409, 'confirmation_required'],
      [
        b,
        { confirmation: 'RESTORE nas-a', passphrase: 'not the passphrase' },
        400,
        'backup_passphrase_incorrect',
      ],
      [
        b,
        {
          confirmation: 'RESTORE nas-a',
          diskMapping: { disks: [{ role: 'data', roleIndex: 1, device: '/dev/sdz' }] },
        },
        409,
        'disk_mapping_invalid',
      ],
      [b, { confirmation: 'RESTORE nas-a', diskMapping: { disks: 'x' } }, 400, 'bad_request'],
      [foreignArray, { confirmation: 'RESTORE nas-a' }, 409, 'archive_other_installation'],
      [foreignArray, { confirmation: 'RESTORE nas-a', diskMapping: { disks: [] } }, 400, 'bad_request'],
    ];
    for (const [box, o, status, code] of cases) {
      const was = box === b ? before : snapshot(box);
      const r = await importTo({ socket: box.socket }, archive, o);
      expect([r.status, r.json().code], JSON.stringify(o)).toEqual([status, code]);
      if (code === 'confirmation_required') expect(r.json().details).toEqual({ expected: 'RESTORE nas-a' });
      if (code === 'disk_mapping_invalid')
        expect(r.json().details).toEqual({ entry: { role: 'data', roleIndex: 1, device: '/dev/sdz' } });
      expect(snapshot(box), code).toEqual(was);
    }
    const garbage = multipart([
      { name: 'archive', filename: 'a', data: Buffer.from('garbage') },
      { name: 'confirmation', value: 'x' },
    ]);
    const g = await rawRequest({ socket: b.socket }, 'POST', '/config/import', garbage.body, {
      'content-type': garbage.contentType,
    });
    expect(g.json().code).toBe('invalid_archive');
    expect(snapshot(b)).toEqual(before);
  });

  for (const step of ['pre_import_archive', 'prepare_database', 'swap_files', 'regenerate_samba', 'commit']) {
    it(`a failure at ${step}: 500 import_failed with details.step, the box exactly as before`, async () => {
      const b = await startSandbox({
        hooks: {
          importFault: (s: string) => {
            if (s === step) throw new Error(`injected failure at ${s}`);
          },
        },
      });
      boxes.push(b);
      await createUser(b, 'carol');
      fs.writeFileSync(path.join(b.root, 'etc/appliance/other.custom.conf'), 'b\n');
      const before = snapshot(b);
      const r = await importTo({ socket: b.socket }, archive, {
        confirmation: 'RESTORE nas-a',
        passphrase: PASS,
      });
      expect([r.status, r.json().code, r.json().details]).toEqual([500, 'import_failed', { step }]);
      expect(snapshot(b)).toEqual(before);
      expect((await b.call('GET', '/users')).status).toBe(200);
    });
  }

  it('a real testparm refusal of the restored smb.custom.conf fails regenerate_samba and changes nothing', async () => {
    if (!testparm) return;
    const { repack } = await import('@appliance/archive-preview/test-support');
    const bad = await repack(archive, (files) => {
      files.set('custom/samba/smb.custom.conf', Buffer.from('[global]\n  this is not a parameter = 1\n'));
    });
    const b = await fresh();
    const before = snapshot(b);
    // (a re-packed archive's manifest names the host "nas")
    const r = await importTo({ socket: b.socket }, bad, { confirmation: 'RESTORE nas', passphrase: PASS });
    expect([r.status, r.json().details]).toEqual([500, { step: 'regenerate_samba' }]);
    expect(snapshot(b)).toEqual(before);
  });

  it('the import lock: other writes get import_in_progress; an import waits for nothing, it refuses', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let reached!: () => void;
    const atSwap = new Promise<void>((r) => {
      reached = r;
    });
    const b = await startSandbox({
      hooks: {
        importFault: async (s: string) => {
          if (s === 'swap_files') {
            reached();
            await held;
          }
        },
      },
    });
    boxes.push(b);
    const running = importTo({ socket: b.socket }, archive, {
      confirmation: 'RESTORE nas-a',
      passphrase: PASS,
    });
    await atSwap;
    const during = [
      await b.call('POST', '/users', { username: 'dave' }),
      await b.call('PUT', '/settings', { hostname: 'x', timezone: 'UTC' }),
      await b.call('POST', '/config/export', undefined, { raw: '' }),
      await b.call('POST', '/tokens', { name: 'x', role: 'admin' }),
      // the long operations: template install, share data delete, external disk format
      await b.call('POST', '/templates/jellyfin/install', {}),
      await b.call('POST', '/shares/media/data/delete', { confirmation: 'media' }),
      await b.call('POST', '/disks/external/backup/format', {
        confirmation: 'FORMAT backup',
        filesystem: 'ext4',
      }),
    ];
    for (const r of during) expect([r.status, r.body.code]).toEqual([409, 'import_in_progress']);
    expect((await b.call('GET', '/users')).status).toBe(200);
    const second = await importTo({ socket: b.socket }, archive, {
      confirmation: 'RESTORE nas-a',
      passphrase: PASS,
    });
    expect([second.status, second.json().code]).toEqual([409, 'operations_running']);
    release();
    expect((await running).status).toBe(200);
    expect((await b.call('POST', '/users', { username: 'dave' }, { token: a.token })).status).toBe(201);
  });

  it('an import refuses to start while another write runs (operations_running), and writes nothing', async () => {
    const c = await fresh();
    let release2!: () => void;
    const held2 = new Promise<void>((res) => {
      release2 = res;
    });
    c.server.ctx.hooks.regenerateSamba = async () => {
      await held2;
    };
    const w2 = c.call('DELETE', `/users/${await createUser(c, 'eve')}`);
    await new Promise((res) => setTimeout(res, 100));
    const r2 = await importTo({ socket: c.socket }, archive, {
      confirmation: 'RESTORE nas-a',
      passphrase: PASS,
    });
    expect([r2.status, r2.json().code]).toEqual([409, 'operations_running']);
    release2();
    expect((await w2).status).toBe(204);
  });
});

describe('schema versions through the real server', () => {
  const boxes: Sandbox[] = [];
  afterAll(async () => {
    for (const s of boxes) await s.close();
  });

  /** A database at the first migration only (an older release), with a few rows, as state.db bytes. */
  async function olderStateDb(dir: string): Promise<Buffer> {
    const { default: Database } = await import('better-sqlite3');
    const { drizzle } = await import('drizzle-orm/better-sqlite3');
    const { migrate } = await import('drizzle-orm/better-sqlite3/migrator');
    const { MIGRATIONS_DIR } = await import('../../db/open.ts');
    const folder = path.join(dir, 'migrations-0000');
    fs.cpSync(MIGRATIONS_DIR, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8'));
    journal.entries = journal.entries.slice(0, 1);
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    const file = path.join(dir, 'old.db');
    const db = new Database(file);
    migrate(drizzle(db), { migrationsFolder: folder });
    const t = '2026-01-01T00:00:00.000Z';
    db.prepare(
      "insert into settings (id, hostname, timezone, backup_passphrase, updated_at) values (1, 'old-nas', 'UTC', null, ?)",
    ).run(t);
    db.prepare(
      "insert into users values ('8b0f0a5e-0000-4000-8000-000000000001', 'olduser', 'viewer', null, ?, ?)",
    ).run(t, t);
    db.prepare(
      "insert into audit_log (at, actor, operation, target, outcome) values (?, 'x', 'y', 'z', 'ok')",
    ).run(t);
    db.pragma('journal_mode = DELETE');
    db.close();
    return fs.readFileSync(file);
  }

  it('an older archive on a fresh box is upgraded by the real migrations (schemaUpgrade true)', async () => {
    const { craftArchive } = await import('@appliance/archive-preview/test-support');
    const b = await startSandbox({ admin: false });
    boxes.push(b);
    const old = craftArchive({ 'state.db': await olderStateDb(b.root) });
    const r = await importTo({ socket: b.socket }, old, { confirmation: 'RESTORE nas' });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.json().schemaUpgrade).toBe(true);
    const users = b.server.ctx.sqlite.prepare('select username from users').pluck().all();
    expect(users).toEqual(['olduser']);
    expect(b.server.ctx.sqlite.prepare('select hostname from settings').pluck().get()).toBe('old-nas');
    // The live history stays: the old archive's audit row is not restored, the import's is appended.
    const ops = b.server.ctx.sqlite.prepare('select operation from audit_log order by id').pluck().all();
    expect(ops).toEqual(['config.import']);
  });

  it('a newer archive is refused with archive_newer_version, nothing written (fresh and in place)', async () => {
    const { repack } = await import('@appliance/archive-preview/test-support');
    const { default: Database } = await import('better-sqlite3');
    const a = await startSandbox();
    boxes.push(a);
    const base = await rawRequest({ socket: a.socket }, 'POST', '/config/export', Buffer.alloc(0));
    const newer = await repack(base.body, (files) => {
      const file = path.join(a.root, 'newer.db');
      fs.writeFileSync(file, files.get('state.db')!);
      const db = new Database(file);
      db.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run(
        'f'.repeat(64),
        9_999_999_999_999,
      );
      db.close();
      files.set('state.db', fs.readFileSync(file));
    });
    const fresh = await startSandbox({ admin: false });
    boxes.push(fresh);
    const inPlace = await startSandbox();
    boxes.push(inPlace);
    seedArray(inPlace);
    for (const box of [fresh, inPlace]) {
      const before = snapshot(box);
      const r = await importTo({ socket: box.socket }, newer, { confirmation: 'RESTORE nas' });
      expect([r.status, r.json().code]).toEqual([409, 'archive_newer_version']);
      expect(snapshot(box)).toEqual(before);
    }
  });
});
