import fs from 'node:fs';
import path from 'node:path';
import type { AppError } from '@appliance/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ageDecryptWithCli } from '../test-support/age-cli.ts';
import { checkedPreview, groupNames } from '../test-support/checked.ts';
import { repack } from '../test-support/craft.ts';
import { createSandbox, keyCheckOf, MIGRATIONS_DIR, type Sandbox } from '../test-support/sandbox.ts';
import { encryptWithPassphrase } from './age-files.ts';
import { loadMigrations } from './migrations.ts';

/** The newest migration this build ships (the live schema version of a fresh sandbox). */
const CURRENT_TAG = loadMigrations(MIGRATIONS_DIR).entries.at(-1)!.tag;
/** One migration after it: a build from the future. */
const FUTURE_TAG = `${String(loadMigrations(MIGRATIONS_DIR).entries.length).padStart(4, '0')}_future`;

const PASS = 'correct horse battery';
const T1 = '2026-09-02T10:00:00.000Z';

function empty7() {
  return ['shares', 'accounts', 'notifications', 'system', 'custom_config', 'templates', 'stacks'].map(
    (category) => ({
      category,
      added: [],
      changed: [],
      removed: [],
    }),
  );
}

describe('preview of an unchanged export (scenario 1)', () => {
  let sb: Sandbox;
  let archive: Buffer;
  beforeAll(async () => {
    sb = createSandbox();
    archive = await sb.exportArchive();
  });
  afterAll(() => sb.close());

  it('has no blockers, 7 empty groups, opened secrets and the in-place notes', async () => {
    const { response: r, error } = await checkedPreview(sb, archive);
    expect(error).toBeUndefined();
    expect(r?.archive).toEqual({
      createdAt: '2026-09-01T03:00:00.000Z',
      hostname: 'nas',
      appVersion: '1.4.0',
      schemaVersion: CURRENT_TAG,
    });
    expect(r?.liveSchemaVersion).toBe(CURRENT_TAG);
    expect(r?.blockers).toEqual([]);
    expect(r?.groups).toEqual(empty7());
    expect(r?.secrets).toEqual({ status: 'opened', identity: 'opened', stacks: [] });
    expect(r?.notes.map((n) => n.code)).toEqual(['tokens_replaced', 'array_state_kept']);
    expect(r?.bareMetal).toBeUndefined();
  });

  it('writes what the archive format says: sealed values and .env inside secrets.age, cross-checked with the age CLI', async () => {
    const { unpackArchive } = await import('../test-support/craft.ts');
    const files = await unpackArchive(archive);
    expect([...files.keys()]).toEqual([
      'state.db',
      'secrets.age',
      'identity.age',
      'custom/samba/media.custom.conf',
      'custom/smb.custom.conf',
      'templates/main/nextcloud/compose.yaml',
      'templates/main/nextcloud/meta.json',
      'stacks/web/docker-compose.yml',
      'stacks/web/meta.json',
      'manifest.json',
    ]);
    const secrets = await ageDecryptWithCli(files.get('secrets.age')!, PASS);
    expect(secrets.ok).toBe(true);
    expect(JSON.parse(secrets.plaintext.toString())).toEqual({
      formatVersion: 1,
      sealed: [
        {
          table: 'notify_channels',
          column: 'secret',
          key: ['c-1'],
          value: Buffer.from('ntfy-token').toString('base64'),
        },
      ],
      stacks: [{ name: 'web', env: Buffer.from('PASSWORD=x\n').toString('base64') }],
    });
    const identity = await ageDecryptWithCli(files.get('identity.age')!, PASS);
    expect(identity.plaintext.toString()).toBe(`${sb.key.toString('hex')}\n`);
    expect((await ageDecryptWithCli(files.get('secrets.age')!, 'wrong')).ok).toBe(false);
    // The stanza is scrypt at work factor 2^16, binary (not armored).
    expect(files.get('secrets.age')!.toString('latin1')).toMatch(
      /^age-encryption\.org\/v1\n-> scrypt \S+ 16\n/,
    );
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    expect(Object.keys(manifest.checksums)).toEqual([...Object.keys(manifest.checksums)].sort());
    expect(files.get('manifest.json')!.toString()).toMatch(/^\{\n {2}"formatVersion": 1,[\s\S]*\n\}\n$/);
  });
});

describe('every change after the export appears in the right group (scenarios 2 and 3)', () => {
  let sb: Sandbox;
  let archive: Buffer;
  beforeAll(async () => {
    sb = createSandbox();
    archive = await sb.exportArchive();
    const run = (sql: string, ...p: unknown[]) => sb.db.prepare(sql).run(...p);
    // shares: old deleted, media edited, new created
    run("INSERT INTO shares VALUES ('old', 'array-only', 'mfs', 1, 1, ?, ?)", T1, T1);
    sb.db.exec("DELETE FROM shares WHERE name = 'old'");
    run("DELETE FROM share_group_permissions WHERE share_name = 'photos'");
    run("UPDATE shares SET cache_mode = 'array-only', updated_at = ? WHERE name = 'media'", T1);
    run("INSERT INTO shares VALUES ('new', 'cache-only', 'mfs', 1, 1, ?, ?)", T1, T1);
    run("UPDATE share_user_permissions SET access = 'read-only'");
    // accounts
    run("INSERT INTO users VALUES ('u-bob', 'bob', 'viewer', NULL, ?, ?)", T1, T1);
    run("UPDATE users SET password_hash = 'new-hash' WHERE id = 'u-alice'");
    run("INSERT INTO user_groups VALUES ('g-kids', 'kids', ?)", T1);
    run("INSERT INTO user_group_members VALUES ('g-kids', 'u-bob')");
    run("DELETE FROM user_group_members WHERE group_id = 'g-family'");
    run("INSERT INTO api_tokens VALUES ('t-2', 'h2', 'u-bob', 'script', 'viewer', ?, NULL, NULL)", T1);
    run("UPDATE api_tokens SET last_used_at = ? WHERE id = 't-1'", T1);
    // notifications
    run("UPDATE notify_channels SET secret = ? WHERE id = 'c-1'", sb.sealer.seal('ntfy-token'));
    run("INSERT INTO notify_channels VALUES ('c-2', 'mail', 'email', 1, '{}', NULL, ?, ?)", T1, T1);
    run("INSERT INTO notify_routes VALUES ('disk.failed', 'c-2')");
    run("UPDATE notify_event_severity SET severity = 'error'");
    // system
    run("UPDATE settings SET hostname = 'box', timezone = 'UTC', updated_at = ?", T1);
    run('UPDATE array_settings SET migration_pending = 1');
    run('UPDATE external_disks SET backup_destination = 0, id = 77');
    // files
    sb.write('/etc/appliance/smb.custom.conf', '[global]\n  workgroup = OTHER\n');
    sb.write('/etc/appliance/x.custom.conf', 'x\n');
    sb.write('/etc/appliance/not-custom.conf', 'ignored\n');
    sb.write('/var/lib/appliance/catalog/main/nextcloud/compose.yaml', 'services: {}\n');
    fs.rmSync(sb.paths.real('/var/lib/appliance/catalog/main/nextcloud/meta.json'));
    sb.write('/var/lib/appliance/catalog/extra/app/compose.yaml', 'x\n');
    sb.write('/var/lib/appliance/stacks/web/docker-compose.yml', 'services:\n  web:\n    image: caddy\n');
    sb.write('/var/lib/appliance/stacks/web/.env', 'PASSWORD=changed\n', 0o600);
  });
  afterAll(() => sb.close());

  it('lists each difference as added, changed or removed, by kind and name', async () => {
    const { response: r, error } = await checkedPreview(sb, archive);
    expect(error).toBeUndefined();
    expect(r?.blockers).toEqual([]);
    expect(groupNames(r!)).toEqual({
      shares: {
        added: ['share_group_permission=photos / family'],
        changed: ['share=media', 'share_user_permission=media / alice'],
        removed: ['share=new'],
      },
      accounts: {
        added: ['user_group_member=family / alice'],
        changed: ['user=alice'],
        removed: ['user=bob', 'user_group=kids', 'user_group_member=kids / bob', 'api_token=bob / script'],
      },
      notifications: {
        added: [],
        changed: ['notification_channel=phone', 'notification_severity=disk.failed'],
        removed: ['notification_channel=mail', 'notification_route=disk.failed / mail'],
      },
      system: {
        added: [],
        changed: ['external_disk=backup', 'hostname=', 'timezone='],
        removed: [],
      },
      custom_config: {
        added: [],
        changed: ['custom_config_file=smb.custom.conf'],
        removed: ['custom_config_file=x.custom.conf'],
      },
      templates: {
        added: ['template_file=main/nextcloud/meta.json'],
        changed: ['template_file=main/nextcloud/compose.yaml'],
        removed: ['template_file=extra/app/compose.yaml'],
      },
      stacks: { added: [], changed: ['stack_file=web/docker-compose.yml'], removed: [] },
    });
  });
});

describe('blockers from real archives', () => {
  const sandboxes: Sandbox[] = [];
  const make = (o: Parameters<typeof createSandbox>[0] = {}) => {
    const s = createSandbox(o);
    sandboxes.push(s);
    return s;
  };
  afterEach(() => {
    for (const s of sandboxes.splice(0)) s.close();
  });

  it('archive_other_installation (scenario 4): single blocker, groups still computed', async () => {
    const other = make();
    const live = make();
    const { response: r } = await checkedPreview(live, await other.exportArchive());
    expect(r?.blockers.map((b) => b.code)).toEqual(['archive_other_installation']);
    expect(r?.groups).toHaveLength(7);
    expect(r?.bareMetal).toBeUndefined();
    // The configured passphrase is the same text, so secrets open; identity.age holds the other key.
    expect(r?.secrets.identity).toBe('opened');
  });

  it('archive_array_mismatch (scenario 5): a data disk added after the export', async () => {
    const live = make();
    const archive = await live.exportArchive();
    live.db
      .prepare(
        "INSERT INTO array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, mountpoint) VALUES ('data', 2, '/dev/sdd', 'xfs', 'uuid-d2', 0, '/mnt/disk2')",
      )
      .run();
    const { response: r } = await checkedPreview(live, archive);
    expect(r?.blockers).toEqual([
      {
        code: 'archive_array_mismatch',
        message:
          "The archive's array differs from this installation's array: the live array has data disk 2 (filesystem uuid-d2), which the archive does not. Only disk operations change the array; export a new archive.",
      },
    ]);
  });

  it('restore_path_unsafe (scenario 12): a symlinked live custom config file', async () => {
    const live = make();
    const archive = await live.exportArchive();
    fs.symlinkSync('/etc/hostname', live.paths.real('/etc/appliance/linked.custom.conf'));
    const { response: r } = await checkedPreview(live, archive);
    expect(r?.blockers).toEqual([
      {
        code: 'restore_path_unsafe',
        message:
          'Restoring files: /etc/appliance/linked.custom.conf is a symbolic link, which is never followed.',
      },
    ]);
    const g = groupNames(r!);
    expect(g['custom_config']).toEqual({ added: [], changed: [], removed: [] });
    expect(g['stacks']).toEqual({ added: [], changed: [], removed: [] });
  });

  it("restore_path_unsafe: a symlinked stack .env the archive's secrets would restore", async () => {
    const live = make();
    const archive = await live.exportArchive();
    const env = live.paths.real('/var/lib/appliance/stacks/web/.env');
    fs.rmSync(env);
    fs.symlinkSync('/etc/shadow', env);
    const { response: r } = await checkedPreview(live, archive);
    expect(r?.blockers).toEqual([
      {
        code: 'restore_path_unsafe',
        message:
          'Restoring files: /var/lib/appliance/stacks/web/.env is a symbolic link, which is never followed.',
      },
    ]);
  });
});

describe('schema versions', () => {
  const sandboxes: Sandbox[] = [];
  let newerDir: string;
  beforeAll(() => {
    // This build's migrations plus one newer migration (a build from the future).
    const base = createSandbox({ seed: false });
    sandboxes.push(base);
    newerDir = path.join(base.root, 'migrations-newer');
    fs.cpSync(base.migrations.folder, newerDir, { recursive: true });
    fs.writeFileSync(
      path.join(newerDir, `${FUTURE_TAG}.sql`),
      'CREATE TABLE `future_things` (`id` text PRIMARY KEY NOT NULL) STRICT;\n',
    );
    const journalFile = path.join(newerDir, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8'));
    journal.entries.push({
      idx: journal.entries.length,
      version: '6',
      when: journal.entries.at(-1).when + 1000,
      tag: FUTURE_TAG,
      breakpoints: true,
    });
    fs.writeFileSync(journalFile, JSON.stringify(journal));
  });
  afterAll(() => {
    for (const s of sandboxes) s.close();
  });

  it('an archive from a newer build: archive_newer_version, groups [], no bareMetal (in place and fresh)', async () => {
    const keySource = createSandbox({ seed: false });
    sandboxes.push(keySource);
    const key = keySource.key;
    const future = createSandbox({ migrationsDir: newerDir, key });
    const inPlace = createSandbox({ key });
    const fresh = createSandbox({ key, array: false });
    sandboxes.push(future, inPlace, fresh);
    const archive = await future.exportArchive();
    for (const live of [inPlace, fresh]) {
      const inventory = { read: async () => ({ labMode: true, bootResolved: true, disks: [] }) };
      const { response: r } = await checkedPreview(live, archive, undefined, { inventory });
      expect(r?.archive.schemaVersion).toMatch(/^unknown-\d+$/);
      expect(r?.blockers.map((b) => b.code)).toEqual(['archive_newer_version']);
      expect(r?.blockers[0]?.message).toContain('1.4.0');
      expect(r?.groups).toEqual([]);
      expect(r?.bareMetal).toBeUndefined();
    }
  });

  it('an older archive in place: incompatible_archive; on a fresh install: upgraded, schemaUpgrade true', async () => {
    const old = createSandbox();
    const key = old.key;
    const inPlace = createSandbox({ migrationsDir: newerDir, key });
    const fresh = createSandbox({ migrationsDir: newerDir, key, array: false });
    sandboxes.push(old, inPlace, fresh);
    const archive = await old.exportArchive();
    const a = (await checkedPreview(inPlace, archive)).response!;
    expect(a.blockers.map((b) => b.code)).toEqual(['incompatible_archive']);
    expect(a.blockers[0]?.message).toContain(CURRENT_TAG);
    expect(a.blockers[0]?.message).toContain(FUTURE_TAG);
    expect(a.groups).toEqual([]);
    const inventory = { read: async () => ({ labMode: true, bootResolved: true, disks: [] }) };
    const b = (await checkedPreview(fresh, archive, undefined, { inventory })).response!;
    expect(b.blockers).toEqual([]);
    expect(b.groups).toEqual([]);
    expect(b.bareMetal?.schemaUpgrade).toBe(true);
    expect(b.bareMetal?.disks.map((d) => d.state)).toEqual(['absent', 'absent']);
    expect(b.notes.map((n) => n.code)).toEqual(['tokens_replaced', 'array_degraded']);
  });

  it('a fresh install whose staged upgrade fails on the content: incompatible_archive with the migration error', async () => {
    const old = createSandbox();
    old.db.exec('CREATE TABLE future_things (x)');
    const fresh = createSandbox({ migrationsDir: newerDir, key: old.key, array: false });
    sandboxes.push(old, fresh);
    const inventory = { read: async () => ({ labMode: true, bootResolved: true, disks: [] }) };
    const r = (await checkedPreview(fresh, await old.exportArchive(), undefined, { inventory })).response!;
    expect(r.blockers.map((b) => b.code)).toEqual(['incompatible_archive']);
    // it says what was tried (issue 25), names both versions and carries the migration error
    expect(r.blockers[0]?.message).toMatch(
      new RegExp(
        `^Upgrading the archive's database from schema version ${CURRENT_TAG} to this installation's ${FUTURE_TAG} failed: .*future_things. already exists`,
      ),
    );
    expect(r.bareMetal?.schemaUpgrade).toBe(true);
  });
});

describe('secrets rules (01 §4.8), cross-checked with the age CLI', () => {
  const sandboxes: Sandbox[] = [];
  afterAll(() => {
    for (const s of sandboxes) s.close();
  });
  const make = (o: Parameters<typeof createSandbox>[0] = {}) => {
    const s = createSandbox(o);
    sandboxes.push(s);
    return s;
  };

  it('no age files: none/none; a sent passphrase is not checked', async () => {
    const sb = make({ passphrase: null });
    const archive = await sb.exportArchive();
    const { unpackArchive } = await import('../test-support/craft.ts');
    expect([...(await unpackArchive(archive)).keys()].filter((n) => n.endsWith('.age'))).toEqual([]);
    const r = (await checkedPreview(sb, archive, 'whatever')).response!;
    expect(r.secrets).toEqual({ status: 'none', identity: 'none', stacks: ['web'] });
  });

  it('configured passphrase wrong (scenario 7): passphrase_incorrect and the stacks listed; sent right: opened', async () => {
    const sb = make();
    const archive = await sb.exportArchive();
    sb.db.prepare('UPDATE settings SET backup_passphrase = ?').run(sb.sealer.seal('a different passphrase'));
    const r = (await checkedPreview(sb, archive)).response!;
    expect(r.secrets).toEqual({
      status: 'passphrase_incorrect',
      identity: 'passphrase_incorrect',
      stacks: ['web'],
    });
    const sent = (await checkedPreview(sb, archive, PASS)).response!;
    expect(sent.secrets).toEqual({ status: 'opened', identity: 'opened', stacks: [] });
  });

  it('no configured passphrase: no_passphrase', async () => {
    const sb = make();
    const archive = await sb.exportArchive();
    sb.db.prepare('UPDATE settings SET backup_passphrase = NULL').run();
    const r = (await checkedPreview(sb, archive)).response!;
    expect(r.secrets).toEqual({ status: 'no_passphrase', identity: 'no_passphrase', stacks: ['web'] });
  });

  it('a wrong sent passphrase (scenario 7): 400 backup_passphrase_incorrect, which the age CLI agrees with', async () => {
    const sb = make();
    const archive = await sb.exportArchive();
    const { error } = await checkedPreview(sb, archive, 'wrong passphrase');
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).code).toBe('backup_passphrase_incorrect');
    const { unpackArchive } = await import('../test-support/craft.ts');
    const files = await unpackArchive(archive);
    expect((await ageDecryptWithCli(files.get('secrets.age')!, 'wrong passphrase')).ok).toBe(false);
    expect((await ageDecryptWithCli(files.get('secrets.age')!, PASS)).ok).toBe(true);
  });

  it('identity.age without secrets.age: opened with the right passphrase, refused with a wrong sent one', async () => {
    const sb = make();
    const archive = await repack(await sb.exportArchive(), (f) => f.delete('secrets.age'));
    const right = (await checkedPreview(sb, archive, PASS)).response!;
    expect(right.secrets).toEqual({ status: 'none', identity: 'opened', stacks: ['web'] });
    const { error } = await checkedPreview(sb, archive, 'nope');
    expect((error as AppError).code).toBe('backup_passphrase_incorrect');
  });

  it('a passphrase that opens secrets.age but not identity.age: identity passphrase_incorrect, no refusal', async () => {
    const sb = make();
    const otherIdentity = await encryptWithPassphrase(`${sb.key.toString('hex')}\n`, 'another passphrase');
    const archive = await repack(await sb.exportArchive(), (f) =>
      f.set('identity.age', Buffer.from(otherIdentity)),
    );
    expect((await ageDecryptWithCli(otherIdentity, PASS)).ok).toBe(false);
    expect((await ageDecryptWithCli(otherIdentity, 'another passphrase')).plaintext.toString()).toBe(
      `${sb.key.toString('hex')}\n`,
    );
    const r = (await checkedPreview(sb, archive, PASS)).response!;
    expect(r.secrets).toEqual({ status: 'opened', identity: 'passphrase_incorrect', stacks: [] });
  });

  it('an unreadable age file (not age, or a work factor over 2^16) is invalid_archive', async () => {
    const sb = make();
    const base = await sb.exportArchive();
    const junk = await repack(base, (f) => f.set('secrets.age', Buffer.from('not an age file')));
    expect(((await checkedPreview(sb, junk)).error as AppError).code).toBe('invalid_archive');
    const { Encrypter } = await import('age-encryption');
    const e = new Encrypter();
    e.setPassphrase(PASS);
    e.setScryptWorkFactor(17);
    const awaitedCostly = await e.encrypt(`${sb.key.toString('hex')}\n`);
    const withCostly = await repack(base, (f) => f.set('identity.age', Buffer.from(awaitedCostly)));
    const err = (await checkedPreview(sb, withCostly)).error as AppError;
    expect(err.code).toBe('invalid_archive');
    expect(err.details?.['entry']).toBe('identity.age');
  });

  it('an identity.age whose key does not match the archive machine_key_check is invalid_archive', async () => {
    const sb = make();
    const wrongKey = await encryptWithPassphrase(`${'00'.repeat(32)}\n`, PASS);
    expect(keyCheckOf(Buffer.alloc(32))).not.toBe(keyCheckOf(sb.key));
    const archive = await repack(await sb.exportArchive(), (f) =>
      f.set('identity.age', Buffer.from(wrongKey)),
    );
    expect(((await checkedPreview(sb, archive)).error as AppError).code).toBe('invalid_archive');
  });
});
