/**
 * Config import crash tests (08 §14, issue 16): the real `appliance serve` killed with SIGKILL
 * during each step of an import, then restarted on the same root. After the restart the box holds
 * either the whole old configuration or the whole new one (database rows, custom files, catalog,
 * stack files and `.env`, machine key, smb.conf — never a mix), no temporary file or import work
 * directory is left, and the service answers. `strace` delays `fsync` and `unlink` so that each
 * step stays open long enough to be seen (no fault is injected into the product).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importBody } from '@appliance/archive-preview/test-support';
import { requirePrerequisites } from '@appliance/lab';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test-support/config-archive.ts';
import { startSandbox } from '../../test-support/sandbox.ts';
import {
  call,
  createAdmin,
  inFlight,
  killAll,
  type ServerProcess,
  slowSyscalls,
  startServerProcess,
  tempLeftovers,
  waitForKillPoint,
} from './crash-support.ts';

const MiB = 1024 * 1024;
const PASS = 'correct horse battery staple';

let work: string;
let archive: Buffer;
let newView: View;

/** What makes up a configuration: the config tables, the restored files, the key, smb.conf. */
interface View {
  db: Record<string, string[]>;
  files: Record<string, string>;
}

function view(root: string): View {
  const sqlite = new Database(path.join(root, 'var/lib/appliance/state.db'), { readonly: true });
  const db: Record<string, string[]> = {};
  try {
    const tables = sqlite
      .prepare(
        "select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .pluck()
      .all() as string[];
    for (const t of tables) {
      // history, and this machine's runtime state (watchers: conditions, SMART values, what the
      // service last wrote to each generated file), which an import never restores
      if (
        [
          'audit_log',
          'notify_alerts',
          'notify_deliveries',
          'watcher_conditions',
          'smart_readings',
          'generated_files',
        ].includes(t)
      )
        continue;
      db[t] = (sqlite.prepare(`select * from "${t}"`).all() as Record<string, unknown>[])
        .map((r) => JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v)))
        .sort();
    }
  } finally {
    sqlite.close();
  }
  const files: Record<string, string> = {};
  const sha = (p: string, replaceRoot = false) => {
    const data = fs.readFileSync(p);
    return createHash('sha256')
      .update(replaceRoot ? data.toString('utf8').replaceAll(root, '<root>') : data)
      .digest('hex');
  };
  const walk = (dir: string, keep: (rel: string) => boolean) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      const full = path.join(e.parentPath, e.name);
      const rel = path.relative(root, full);
      if (e.isFile() && keep(rel)) files[rel] = sha(full);
    }
  };
  walk(path.join(root, 'etc/appliance'), (rel) => rel.endsWith('.custom.conf'));
  walk(path.join(root, 'var/lib/appliance/catalog'), () => true);
  walk(path.join(root, 'var/lib/appliance/stacks'), () => true);
  files['etc/appliance/secret.key'] = sha(path.join(root, 'etc/appliance/secret.key'));
  files['etc/appliance/samba/smb.conf'] = sha(path.join(root, 'etc/appliance/samba/smb.conf'), true);
  return { db, files };
}

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['strace', 'testparm'] });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-import-crash-'));
  // Box A: the archive to restore, with a 16 MiB catalog so the steps take measurable time.
  const a = await startSandbox();
  try {
    const ok = (r: { status: number; text: string }, s = 200) => expect(r.status, r.text).toBe(s);
    ok(await a.call('PUT', '/settings', { hostname: 'nas-a', timezone: 'UTC', backupPassphrase: PASS }));
    ok(
      await a.call('POST', '/users', { username: 'alice', role: 'viewer', password: 'alice password' }),
      201,
    );
    fs.writeFileSync(path.join(a.root, 'etc/appliance/a.custom.conf'), 'a\n');
    const stack = path.join(a.root, 'var/lib/appliance/stacks/web');
    fs.mkdirSync(stack, { recursive: true });
    fs.writeFileSync(path.join(stack, 'docker-compose.yml'), 'services: {}\n');
    fs.writeFileSync(path.join(stack, 'meta.json'), '{}\n');
    fs.writeFileSync(path.join(stack, '.env'), 'SECRET=0123456789abcdef\n', { mode: 0o600 });
    const cat = path.join(a.root, 'var/lib/appliance/catalog/lab/blobs');
    fs.mkdirSync(cat, { recursive: true });
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(cat, `b${i}.bin`), randomBytes(4 * MiB));
    const r = await rawRequest({ socket: a.socket }, 'POST', '/config/export', Buffer.alloc(0));
    expect(r.status).toBe(200);
    archive = r.body;
    await a.server.ctx.writes.run(() => undefined);
    newView = view(a.root);
  } finally {
    await a.close();
  }
}, 120_000);

afterAll(async () => {
  await killAll();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function newRoot(): { root: string; socket: string } {
  const root = fs.mkdtempSync(path.join(work, 'root-'));
  return { root, socket: `${root}.sock` };
}

const exists = (p: string) => fs.existsSync(p);
const journalNonce = (root: string): number | null => {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'var/lib/appliance/import/journal.json'), 'utf8'))
      .nonce;
  } catch {
    return null;
  }
};
const userVersion = (root: string): number => {
  const db = new Database(path.join(root, 'var/lib/appliance/state.db'), { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

/** The kill points, each with the evidence that the import is inside that step, and the outcome. */
const KILL_POINTS: {
  step: string;
  expect: 'old' | 'new';
  /** What the startup sweep logs. */
  sweep: string;
  evidence: (root: string) => boolean;
}[] = [
  {
    step: 'pre_import_archive',
    sweep: 'cleaned',
    expect: 'old',
    evidence: (root) => {
      const dir = path.join(root, 'var/lib/appliance/backups');
      return exists(dir) && fs.readdirSync(dir).some((n) => n.startsWith('.pre-import-'));
    },
  },
  {
    step: 'prepare_database',
    sweep: 'cleaned',
    expect: 'old',
    evidence: (root) =>
      exists(path.join(root, 'var/lib/appliance/import/new.db')) && journalNonce(root) === null,
  },
  {
    step: 'swap_files',
    sweep: 'rolled_back',
    expect: 'old',
    evidence: (root) =>
      journalNonce(root) !== null && !exists(path.join(root, 'etc/appliance.import/new/smb.conf')),
  },
  {
    step: 'regenerate_samba',
    sweep: 'rolled_back',
    expect: 'old',
    evidence: (root) => exists(path.join(root, 'etc/appliance.import/new/smb.conf')),
  },
  {
    step: 'commit (after the commit point, before the clean-up)',
    sweep: 'rolled_forward',
    expect: 'new',
    evidence: (root) => {
      const nonce = journalNonce(root);
      return nonce !== null && userVersion(root) === nonce;
    },
  },
];

describe('config import: SIGKILL during each step, then a restart', { timeout: 180_000 }, () => {
  for (const point of KILL_POINTS) {
    it(`${point.step}: the whole ${point.expect} configuration, no leftovers, the service answers`, async () => {
      const r = newRoot();
      let srv: ServerProcess = await startServerProcess(r);
      const token = await createAdmin(srv.url);
      expect((await call(srv.url, token, 'POST', '/users', { username: 'carol' })).status).toBe(201);
      fs.writeFileSync(path.join(r.root, 'etc/appliance/b.custom.conf'), 'b\n');
      fs.mkdirSync(path.join(r.root, 'var/lib/appliance/catalog/mine'), { recursive: true });
      fs.writeFileSync(path.join(r.root, 'var/lib/appliance/catalog/mine/t.yaml'), 'mine\n');
      await new Promise((res) => setTimeout(res, 200)); // the WAL syncer has run
      const oldView = view(r.root);

      const slow = await slowSyscalls(srv.pid, ['fsync', 'unlink', 'unlinkat'], 150);
      const body = importBody(archive, { confirmation: 'RESTORE nas-a', passphrase: PASS });
      const request = inFlight(
        rawRequest({ socket: r.socket }, 'POST', '/config/import', body.body, {
          'content-type': body.contentType,
        }),
      );
      try {
        await waitForKillPoint(point.step, request, () => point.evidence(r.root));
      } finally {
        await srv.kill();
        await slow.detach();
      }
      // (the request never answers: the connection died with the server)

      srv = await startServerProcess(r);
      expect(srv.output()).toContain(`"outcome":"${point.sweep}"`);
      const after = view(r.root);
      if (point.expect === 'old') expect(after).toEqual(oldView);
      else {
        expect(after).toEqual(newView);
      }
      expect(tempLeftovers(r.root)).toEqual([]);
      expect(exists(path.join(r.root, 'var/lib/appliance/import'))).toBe(false);
      expect(exists(path.join(r.root, 'etc/appliance.import'))).toBe(false);
      const answer = await call(srv.url, null, 'GET', '/setup/status');
      expect(answer.body).toEqual({ setupRequired: false });
      // And an import runs to its end after the restart (or again, when the first one committed).
      const again = importBody(archive, { confirmation: 'RESTORE nas-a', passphrase: PASS });
      const done = await rawRequest({ socket: r.socket }, 'POST', '/config/import', again.body, {
        'content-type': again.contentType,
      });
      expect(done.status, done.body.toString()).toBe(200);
      await srv.stop();
      expect(view(r.root)).toEqual(newView);
    });
  }
});
