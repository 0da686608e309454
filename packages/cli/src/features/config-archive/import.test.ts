/**
 * The pure parts of `config import`: the preview summary (here with a fresh install's disk
 * matching, which the process tests cannot reach without an array) and `--disk-mapping` parsing.
 * The command itself is tested as a real process in test/config-import.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../framework/exit.ts';
import { diskMappingOption, restorePhrase, resultText, summary } from './import.ts';

const preview = {
  archive: {
    createdAt: new Date().toISOString(),
    hostname: 'nas-a',
    appVersion: '0.1.0',
    schemaVersion: '7',
  },
  liveSchemaVersion: '8',
  blockers: [],
  groups: [
    { category: 'shares', added: [{}], changed: [{}, {}], removed: [] },
    { category: 'apps', added: [], changed: [], removed: [] },
  ],
  secrets: { status: 'no_passphrase', identity: 'no_passphrase', stacks: ['jellyfin'] },
  notes: [],
  bareMetal: {
    schemaUpgrade: true,
    disks: [
      { name: 'parity1', role: 'parity', roleIndex: 1, state: 'matched', device: '/dev/sdb' },
      { name: 'disk1', role: 'data', roleIndex: 1, state: 'absent' },
    ],
    diskMapping: { disks: [{ role: 'parity', roleIndex: 1, device: '/dev/sdb' }] },
  },
};

describe('summary', () => {
  it('counts per section, the schema upgrade, secrets and the disk matching of a fresh install', () => {
    const text = summary(preview);
    expect(text).toContain('  shares: 1 added, 2 changed, 0 removed\n');
    expect(text).not.toContain('apps:');
    expect(text).toMatch(/^schema: +7 \(this box: 8; upgraded on import\)$/m);
    expect(text).toMatch(/^secrets: +not opened \(no passphrase: .+\); \.env not restored for jellyfin$/m);
    expect(text).toContain('  parity 1 (parity1): matched → /dev/sdb\n  data 1 (disk1): absent\n');
    expect(text).not.toContain('Blockers');
  });

  it('lists the blockers; says "No changes." when nothing changes', () => {
    const text = summary({
      ...preview,
      groups: [],
      blockers: [{ code: 'archive_newer_version', message: 'Update first.' }],
    });
    expect(text).toContain('No changes.\n');
    expect(text).toContain('Blockers (the import is refused):\n  archive_newer_version: Update first.\n');
  });

  it('the result warns that accounts and tokens are the archive’s', () => {
    const text = resultText(
      {
        preImportArchive: '/var/lib/appliance/backups/pre-import-x.tar.zst',
        schemaUpgrade: true,
        secrets: preview.secrets,
        notes: [],
      },
      'nas-a',
    );
    expect(text).toMatch(/^previous config: +\/var\/lib\/appliance\/backups\/pre-import-x\.tar\.zst$/m);
    expect(text).toMatch(/^schema upgrade: +yes$/m);
    expect(text).toContain("API tokens are now the archive's");
    expect(restorePhrase('nas-a')).toBe('RESTORE nas-a');
  });
});

describe('--disk-mapping', () => {
  it('takes JSON or @FILE; refuses what is not JSON or a missing file (usage errors)', () => {
    const json = '{"disks":[]}';
    expect(diskMappingOption(undefined)).toBeUndefined();
    expect(diskMappingOption(json)).toBe(json);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-mapping-'));
    try {
      const file = path.join(dir, 'm.json');
      fs.writeFileSync(file, `${json}\n`);
      expect(diskMappingOption(`@${file}`)).toBe(json);
      expect(() => diskMappingOption(`@${path.join(dir, 'none.json')}`)).toThrow(UsageError);
      expect(() => diskMappingOption('{disks')).toThrow(/--disk-mapping must be JSON/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
