import { describe, expect, it } from 'vitest';
import type { BareMetal, BareMetalDisk } from './bare-metal.ts';
import type { LiveFiles } from './files.ts';
import {
  databasePlan,
  filesPlan,
  importRefusal,
  importSteps,
  mountsPlan,
  restorePhrase,
  sealedWrites,
} from './import-plan.ts';
import type { PreviewResponse } from './preview.ts';
import { COMPARED_TABLES, MIGRATION_TABLE, NOT_COMPARED } from './registry.ts';

const preview = (over: Partial<PreviewResponse> = {}): PreviewResponse => ({
  archive: { createdAt: 't', hostname: 'nas', appVersion: '1', schemaVersion: 'v' },
  liveSchemaVersion: 'v',
  blockers: [],
  groups: [],
  secrets: { status: 'opened', identity: 'opened', stacks: [] },
  notes: [],
  ...over,
});
const disk = (role: string, roleIndex: number, over: Partial<BareMetalDisk> = {}): BareMetalDisk => ({
  name: `${role} disk ${roleIndex} (/mnt/x, filesystem u)`,
  role,
  roleIndex,
  mountpoint: role === 'parity' ? `/mnt/parity${roleIndex}` : `/mnt/disk${roleIndex}`,
  fsUuid: `u-${role}${roleIndex}`,
  weakIdentity: true,
  state: 'matched',
  device: `/dev/loop${roleIndex}`,
  ...over,
});
const bare = (disks: BareMetalDisk[]): BareMetal => ({
  schemaUpgrade: false,
  disks,
  diskMapping: { disks: [] },
});

describe('importRefusal: the checks after the preview, in order', () => {
  it('passes an archive without blockers, with the right phrase', () => {
    expect(
      importRefusal({
        preview: preview(),
        fresh: false,
        confirmation: 'RESTORE nas',
        diskMapping: undefined,
      }),
    ).toBe(null);
    expect(restorePhrase('nas')).toBe('RESTORE nas');
  });

  it('a diskMapping sent in place is 400 bad_request, before the blockers', () => {
    const e = importRefusal({
      preview: preview({ blockers: [{ code: 'archive_array_mismatch', message: 'm' }] }),
      fresh: false,
      confirmation: 'x',
      diskMapping: [],
    });
    expect(e?.status).toBe(400);
    expect(e?.code).toBe('bad_request');
  });

  it('the first blocker answers with its import status, code and message', () => {
    const e = importRefusal({
      preview: preview({
        blockers: [
          { code: 'incompatible_archive', message: 'older' },
          { code: 'restore_path_unsafe', message: 'unsafe' },
        ],
      }),
      fresh: false,
      confirmation: 'wrong',
      diskMapping: undefined,
    });
    expect([e?.status, e?.code, e?.message]).toEqual([400, 'incompatible_archive', 'older']);
    const u = importRefusal({
      preview: preview({ blockers: [{ code: 'restore_path_unsafe', message: 'unsafe' }] }),
      fresh: false,
      confirmation: 'RESTORE nas',
      diskMapping: undefined,
    });
    expect([u?.status, u?.code]).toEqual([409, 'restore_path_unsafe']);
  });

  it('a wrong confirmation is 409 confirmation_required with the expected phrase (byte for byte)', () => {
    for (const c of [null, '', 'restore nas', 'RESTORE nas ', 'RESTORE  nas']) {
      const e = importRefusal({ preview: preview(), fresh: false, confirmation: c, diskMapping: undefined });
      expect([e?.status, e?.code, e?.details]).toEqual([
        409,
        'confirmation_required',
        { expected: 'RESTORE nas' },
      ]);
    }
  });

  it('every mapping entry must name a matched row with that device, once', () => {
    const bm = bare([
      disk('parity', 1),
      disk('data', 1),
      disk('data', 2, { state: 'replaced' }),
      disk('data', 3, { state: 'absent', device: undefined }),
    ]);
    const check = (mapping: { role: string; roleIndex: number; device: string }[]) =>
      importRefusal({
        preview: preview({ bareMetal: bm }),
        fresh: true,
        confirmation: 'RESTORE nas',
        diskMapping: mapping,
      });
    expect(check([])).toBe(null);
    expect(
      check([
        { role: 'parity', roleIndex: 1, device: '/dev/loop1' },
        { role: 'data', roleIndex: 1, device: '/dev/loop1' },
      ])?.code,
    ).toBe('disk_mapping_invalid');
    expect(check([{ role: 'data', roleIndex: 1, device: '/dev/loop1' }])).toBe(null);
    for (const bad of [
      { role: 'data', roleIndex: 2, device: '/dev/loop2' },
      { role: 'data', roleIndex: 3, device: '/dev/loop3' },
      { role: 'data', roleIndex: 9, device: '/dev/loop9' },
      { role: 'data', roleIndex: 1, device: '/dev/sdz' },
    ]) {
      const e = check([bad]);
      expect([e?.status, e?.code, e?.details]).toEqual([409, 'disk_mapping_invalid', { entry: bad }]);
    }
    const twice = check([
      { role: 'data', roleIndex: 1, device: '/dev/loop1' },
      { role: 'data', roleIndex: 1, device: '/dev/loop1' },
    ]);
    expect(twice?.code).toBe('disk_mapping_invalid');
  });

  it('the confirmation is checked before the mapping', () => {
    const e = importRefusal({
      preview: preview({ bareMetal: bare([]) }),
      fresh: true,
      confirmation: 'no',
      diskMapping: [{ role: 'data', roleIndex: 1, device: '/dev/x' }],
    });
    expect(e?.code).toBe('confirmation_required');
  });
});

describe('databasePlan', () => {
  const liveTables = [...new Set([...COMPARED_TABLES, ...Object.keys(NOT_COMPARED)])];
  const base = {
    liveTables,
    fresh: false,
    identityOpened: true,
    secretsOpened: true,
    archiveKeyCheck: 'K',
    liveKeyCheck: 'K',
    diskMapping: [],
  };

  it('in place: history, the key check and the array stay live; the rest becomes the archive’s', () => {
    const p = databasePlan(base);
    for (const t of [
      'audit_log',
      'notify_alerts',
      'notify_deliveries',
      MIGRATION_TABLE,
      'machine_key_check',
      'array_disks',
    ])
      expect(p.tables[t], t).toBe('live');
    for (const t of [
      'users',
      'shares',
      'settings',
      'stacks',
      'catalog_sources',
      'array_settings',
      'api_tokens',
    ])
      expect(p.tables[t], t).toBe('archive');
    expect(p.liveColumns).toEqual([
      { table: 'array_settings', columns: ['migration_pending', 'migration_pending_since'] },
    ]);
    expect(p.machineKey).toBe('keep');
    expect(p.sealing).toBe('keep');
    expect(p.deviceRewrites).toEqual([]);
  });

  it('fresh with identity opened: adopts the archived key and array; sealed bytes stay valid', () => {
    const mapping = [{ role: 'data', roleIndex: 1, device: '/dev/loop3' }];
    const p = databasePlan({ ...base, fresh: true, liveKeyCheck: 'L', diskMapping: mapping });
    expect(p.tables['machine_key_check']).toBe('archive');
    expect(p.tables['array_disks']).toBe('archive');
    expect(p.machineKey).toBe('adopt');
    expect(p.sealing).toBe('keep');
    expect(p.deviceRewrites).toEqual(mapping);
    expect(p.liveColumns).toEqual([]);
  });

  it('fresh without identity: keeps its own key; reseals when secrets opened, else clears', () => {
    const r = databasePlan({ ...base, fresh: true, liveKeyCheck: 'L', identityOpened: false });
    expect([r.machineKey, r.sealing, r.tables['machine_key_check']]).toEqual(['keep', 'reseal', 'live']);
    const c = databasePlan({
      ...base,
      fresh: true,
      liveKeyCheck: 'L',
      identityOpened: false,
      secretsOpened: false,
    });
    expect(c.sealing).toBe('clear');
  });

  it('refuses a table the registry does not classify', () => {
    expect(() => databasePlan({ ...base, liveTables: [...liveTables, 'mystery'] })).toThrow(/mystery/);
  });
});

describe('sealedWrites', () => {
  const rows = {
    'settings.backup_passphrase': [[1]],
    'notify_channels.secret': [['c1'], ['c2']],
    'stacks.env': [['web'], ['db']],
  };
  const secrets = {
    formatVersion: 1 as const,
    sealed: [
      {
        table: 'notify_channels',
        column: 'secret',
        key: ['c1'],
        value: Buffer.from('s1').toString('base64'),
      },
    ],
    stacks: [{ name: 'web', env: Buffer.from('A=1\n').toString('base64') }],
  };

  it('keep writes nothing', () => {
    expect(sealedWrites({ mode: 'keep', rows, secrets, passphrase: 'p' })).toEqual([]);
  });

  it('reseal takes secrets.age values, the opening passphrase, and the .env bodies', () => {
    const w = sealedWrites({ mode: 'reseal', rows, secrets, passphrase: 'the passphrase' });
    const text = (t: string, k: unknown) =>
      w.find((x) => `${x.table}.${x.column}` === t && x.key[0] === k)?.plain?.toString() ?? null;
    expect(text('settings.backup_passphrase', 1)).toBe('the passphrase');
    expect(text('notify_channels.secret', 'c1')).toBe('s1');
    expect(text('notify_channels.secret', 'c2')).toBe(null);
    expect(text('stacks.env', 'web')).toBe('A=1\n');
    expect(text('stacks.env', 'db')).toBe('');
  });

  it('clear sets NULL, and an empty value where the column is NOT NULL', () => {
    const w = sealedWrites({ mode: 'clear', rows, secrets: null, passphrase: '' });
    expect(w.filter((x) => x.table !== 'stacks').every((x) => x.plain === null)).toBe(true);
    expect(w.filter((x) => x.table === 'stacks').map((x) => x.plain?.length)).toEqual([0, 0]);
  });
});

describe('filesPlan', () => {
  const root = (r: string, files: LiveFiles['stacks']['files'] = []) => ({
    root: r,
    rootKind: 'directory' as const,
    files,
  });
  const live: LiveFiles = {
    custom_config: root('/etc/appliance', [
      { rel: 'old.custom.conf', kind: 'file' },
      { rel: 'samba/smb.custom.conf', kind: 'file' },
    ]),
    templates: root('/var/lib/appliance/catalog'),
    stacks: root('/var/lib/appliance/stacks', [
      { rel: 'gone/docker-compose.yml', kind: 'file' },
      { rel: 'web/docker-compose.yml', kind: 'file' },
      { rel: 'web/meta.json', kind: 'file' },
    ]),
  };
  const archive = new Map(
    Object.entries({
      'state.db': 'x',
      'custom/samba/smb.custom.conf': 'a',
      'custom/new.custom.conf': 'b',
      'templates/main/app/compose.yaml': 'c',
      'stacks/web/docker-compose.yml': 'd',
      'stacks/db/docker-compose.yml': 'e',
      'stacks/db/meta.json': 'f',
    }),
  );
  const liveStacks = [
    { name: 'gone', hasEnv: true },
    { name: 'web', hasEnv: true },
  ];
  const secrets = {
    formatVersion: 1 as const,
    sealed: [],
    stacks: [{ name: 'db', env: Buffer.from('X=1').toString('base64') }],
  };
  const show = (ops: ReturnType<typeof filesPlan>) =>
    ops.map(
      (o) => `${o.action} ${o.root}:${o.rel}${o.source ? ` <- ${o.source.kind}` : ''} ${o.mode.toString(8)}`,
    );

  it('with opened secrets: catalog whole, custom put/removed, stack files and .env', () => {
    expect(show(filesPlan({ archive, live, liveStacks, secrets }))).toEqual([
      'put catalog: <- catalog 755',
      'put etc:new.custom.conf <- archive 644',
      'remove etc:old.custom.conf 644',
      'put etc:samba/smb.custom.conf <- archive 644',
      'put stacks:db/docker-compose.yml <- archive 644',
      'put stacks:db/meta.json <- archive 644',
      'put stacks:db/.env <- env 600',
      'remove stacks:gone/docker-compose.yml 644',
      'remove stacks:gone/.env 600',
      'put stacks:web/docker-compose.yml <- archive 644',
      'remove stacks:web/meta.json 644',
      'remove stacks:web/.env 600',
    ]);
  });

  it('without opened secrets an archived stack’s live .env is left alone', () => {
    const ops = show(filesPlan({ archive, live, liveStacks, secrets: null }));
    expect(ops.filter((o) => o.includes('.env'))).toEqual(['remove stacks:gone/.env 600']);
  });
});

describe('steps and mounts', () => {
  it('mount_disks only on a fresh install with mapped disks; commit last', () => {
    expect(importSteps({ fresh: false, mappedDisks: 0 })).toEqual([
      'pre_import_archive',
      'prepare_database',
      'swap_files',
      'regenerate_samba',
      'commit',
    ]);
    expect(importSteps({ fresh: true, mappedDisks: 2 })).toContain('mount_disks');
  });

  it('mounts each mapped disk at the recorded mountpoint', () => {
    const bm = bare([disk('parity', 1), disk('data', 1)]);
    expect(mountsPlan(bm, [{ role: 'data', roleIndex: 1, device: '/dev/loop1' }])).toEqual([
      { role: 'data', roleIndex: 1, device: '/dev/loop1', mountpoint: '/mnt/disk1', fsUuid: 'u-data1' },
    ]);
  });
});
