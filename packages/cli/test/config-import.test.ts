/**
 * `appliance config import` as a real process against real servers over their sockets: an
 * export of box A imported into box B (--confirm, and the typed phrase on a pseudo-terminal), a
 * wrong phrase (exit 1, nothing written: the database dump is unchanged), no terminal and no
 * --confirm (exit 2), and --json before setup equal to the API's answer for the same import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { repack } from '@appliance/archive-preview/test-support';
import { createClient } from '@appliance/client';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance, onTerminal } from './support.ts';

let a: Sandbox;
let b: Sandbox;
let archive = '';
const usersOf = async (s: Sandbox) =>
  ((await s.call('GET', '/users', undefined, { via: 'unix' })).body.users as { username: string }[])
    .map((u) => u.username)
    .sort();

beforeAll(async () => {
  a = await startSandbox({ config: { logLevel: 'silent' } });
  b = await startSandbox({ config: { logLevel: 'silent' } });
  expect((await a.call('PUT', '/settings', { hostname: 'nas-a', timezone: 'UTC' })).status).toBe(200);
  expect((await appliance(['users', 'create', 'alice', '--socket', a.socket])).code).toBe(0);
  archive = path.join(a.root, 'a.tar.zst');
  const r = await appliance(['config', 'export', '--output', archive, '--socket', a.socket]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
});

describe('config import', () => {
  it('without a terminal and without --confirm: exit 2, nothing written', async () => {
    const before = b.dumpDatabase();
    const r = await appliance(['config', 'import', archive, '--socket', b.socket]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--confirm "RESTORE <hostname of the archive>"');
    expect((await appliance(['config', 'import', '--socket', b.socket])).code).toBe(2);
    expect(
      (await appliance(['config', 'import', path.join(b.root, 'missing.tar.zst'), '--socket', b.socket]))
        .code,
    ).toBe(2);
    const noPhrase = await appliance(
      ['config', 'import', archive, '--passphrase-stdin', '--socket', b.socket],
      {
        input: 'secret\n',
      },
    );
    expect(noPhrase.code).toBe(2);
    expect(noPhrase.stderr).toContain('pass --confirm');
    const badMapping = await appliance([
      'config',
      'import',
      archive,
      '--confirm',
      'RESTORE nas-a',
      '--disk-mapping',
      '{not json',
      '--socket',
      b.socket,
    ]);
    expect(badMapping.code).toBe(2);
    expect(badMapping.stderr).toContain('--disk-mapping must be JSON');
    expect(b.dumpDatabase()).toBe(before);
  });

  it('a preview with a blocker: refused with its code and message before any prompt (exit 1), nothing written', async () => {
    const newer = await repack(fs.readFileSync(archive), (files) => {
      const file = path.join(a.root, 'newer.db');
      fs.writeFileSync(file, files.get('state.db')!);
      const db = new DatabaseSync(file);
      db.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run(
        'f'.repeat(64),
        9_999_999_999_999,
      );
      db.close();
      files.set('state.db', fs.readFileSync(file));
    });
    const file = path.join(a.root, 'newer.tar.zst');
    fs.writeFileSync(file, newer);
    const before = b.dumpDatabase();
    const r = await appliance(['config', 'import', file, '--confirm', 'RESTORE nas-a', '--socket', b.socket]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Blockers \(the import is refused\):\n {2}archive_newer_version: /m);
    expect(r.stderr).toMatch(/^archive_newer_version: .+\(nothing was changed\)$/m);
    const onTty = await onTerminal(
      ['config', 'import', file, '--socket', b.socket],
      'to confirm: ',
      'RESTORE nas-a',
    );
    expect(onTty.code, onTty.screen).toBe(1);
    expect(onTty.screen).not.toContain('to confirm: ');
    expect(onTty.screen).toContain('archive_newer_version: ');
    expect(b.dumpDatabase()).toBe(before);
  });

  it("a wrong --confirm: the API's confirmation_required (exit 1), nothing written", async () => {
    const before = b.dumpDatabase();
    const r = await appliance([
      'config',
      'import',
      archive,
      '--confirm',
      'RESTORE other',
      '--socket',
      b.socket,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^archive of: +nas-a, /m);
    expect(r.stderr).toMatch(/^confirmation_required: .+/m);
    expect(b.dumpDatabase()).toBe(before);
  });

  it('a wrong phrase typed on a terminal: exit 1, nothing sent', async () => {
    const before = b.dumpDatabase();
    const r = await onTerminal(
      ['config', 'import', archive, '--socket', b.socket],
      'to confirm: ',
      'RESTORE nas-b',
    );
    expect(r.code, r.screen).toBe(1);
    expect(r.screen).toMatch(/^ {2}accounts: \d+ added, \d+ changed, \d+ removed\r?$/m);
    expect(r.screen).toContain('Type "RESTORE nas-a" to confirm:');
    expect(r.screen).toContain('confirmation_required: The phrase typed is not "RESTORE nas-a"');
    expect(b.dumpDatabase()).toBe(before);
  });

  it("--confirm imports A into B: a step per event, the result, B has A's users", async () => {
    expect(await usersOf(b)).not.toContain('alice');
    const r = await appliance([
      'config',
      'import',
      archive,
      '--confirm',
      'RESTORE nas-a',
      '--socket',
      b.socket,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^config\.import nas-a: step 1\/\d+: pre import archive, /m);
    expect(r.stderr).toMatch(/^config\.import nas-a: imported, .*, done$/m);
    expect(r.stdout).toMatch(/^previous config: +\/var\/lib\/appliance\/backups\/pre-import-/m);
    expect(r.stdout).toContain("API tokens are now the archive's");
    expect(await usersOf(b)).toEqual(await usersOf(a));
    expect((await b.call('GET', '/settings', undefined, { via: 'unix' })).body.hostname).toBe('nas-a');
  });

  it('the right phrase typed on a terminal imports again, with a progress bar', async () => {
    const r = await onTerminal(
      ['config', 'import', archive, '--socket', b.socket],
      'to confirm: ',
      'RESTORE nas-a',
    );
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toMatch(/100% \| imported \| \d+s/);
    expect(r.screen).toContain('previous config:');
    expect(await usersOf(b)).toEqual(await usersOf(a));
  });

  it("--json before setup (no progress: /events is gated) equals the API's answer", async () => {
    const viaCli = await startSandbox({ admin: false, config: { logLevel: 'silent' } });
    const viaApi = await startSandbox({ admin: false, config: { logLevel: 'silent' } });
    try {
      const r = await appliance([
        'config',
        'import',
        archive,
        '--confirm',
        'RESTORE nas-a',
        '--json',
        '--socket',
        viaCli.socket,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('no progress');
      expect(r.stderr).not.toContain('config.import');
      const api = await createClient({ socket: viaApi.socket }).upload('/config/import', [
        { name: 'confirmation', value: 'RESTORE nas-a' },
        { name: 'archive', file: archive },
      ]);
      const got = JSON.parse(r.stdout);
      const stamp = (x: { preImportArchive: string }) => ({
        ...x,
        preImportArchive: x.preImportArchive.replace(/pre-import-[^/]+$/, 'pre-import-*'),
      });
      expect(stamp(got)).toEqual(stamp(api as { preImportArchive: string }));
      expect(got.preImportArchive).toMatch(/^\/var\/lib\/appliance\/backups\/pre-import-/);
      expect(await usersOf(viaCli)).toEqual(await usersOf(a));
    } finally {
      await viaCli.close();
      await viaApi.close();
    }
  });

  it("over --url with a token and --passphrase-stdin: imported with progress; the box's old token then fails", async () => {
    const c = await startSandbox({ config: { logLevel: 'silent' } });
    try {
      expect(c.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
      const env = { APPLIANCE_URL: c.url, APPLIANCE_TOKEN: c.token };
      const r = await appliance(
        ['config', 'import', archive, '--confirm', 'RESTORE nas-a', '--passphrase-stdin'],
        {
          input: 'not the passphrase\n',
          env,
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^config\.import nas-a: step 1\/\d+: pre import archive, /m);
      expect(r.stdout).toMatch(/^previous config: +\/var\/lib\/appliance\/backups\/pre-import-/m);
      expect(await usersOf(c)).toEqual(await usersOf(a));
      const after = await appliance(['users', 'list'], { env });
      expect(after.code).toBe(1);
      expect(after.stderr).toMatch(/^unauthorized: /);
    } finally {
      await c.close();
    }
  });
});
