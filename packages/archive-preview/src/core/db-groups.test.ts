import { describe, expect, it } from 'vitest';
import { compareDatabases, sameValue } from './db-groups.ts';
import type { DbRows } from './registry.ts';

const share = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  cache_mode: 'cache-only',
  create_policy: 'mfs',
  smb_enabled: 1n,
  smb_browseable: 1n,
  created_at: 't',
  updated_at: 't',
  ...extra,
});

describe('sameValue', () => {
  it('compares by type and value', () => {
    expect(sameValue(null, '')).toBe(false);
    expect(sameValue('', 0n)).toBe(false);
    expect(sameValue(1n, '1')).toBe(false);
    expect(sameValue(1n, 1)).toBe(false);
    expect(sameValue(1n, 1n)).toBe(true);
    expect(sameValue(Buffer.from([1, 2]), Buffer.from([1, 2]))).toBe(true);
    expect(sameValue(Buffer.from([1, 2]), Buffer.from([1, 3]))).toBe(false);
    expect(sameValue(Buffer.from('a'), 'a')).toBe(false);
  });
});

describe('compareDatabases', () => {
  it('reports archive-only rows as added, live-only as removed, differing rows as changed', () => {
    const archive: DbRows = {
      shares: [share('old'), share('media', { cache_mode: 'array-only' }), share('same')],
    };
    const live: DbRows = { shares: [share('new'), share('media'), share('same', { updated_at: 'later' })] };
    const g = compareDatabases(archive, live).get('shares')!;
    expect(g.added).toEqual([{ kind: 'share', name: 'old' }]);
    expect(g.changed).toEqual([{ kind: 'share', name: 'media' }]);
    expect(g.removed).toEqual([{ kind: 'share', name: 'new' }]);
  });

  it('names rows through their references on their own side, a missing reference by its raw id', () => {
    const archive: DbRows = {
      users: [{ id: 'u1', username: 'alice' }],
      user_groups: [{ id: 'g1', name: 'family' }],
      user_group_members: [
        { group_id: 'g1', user_id: 'u1' },
        { group_id: 'g9', user_id: 'u1' },
      ],
      api_tokens: [{ id: 't1', user_id: 'u1', name: 'cli', last_used_at: 'x' }],
    };
    const live: DbRows = {
      users: [{ id: 'u1', username: 'alice' }],
      api_tokens: [{ id: 't1', user_id: 'u1', name: 'cli', last_used_at: 'y' }],
    };
    const g = compareDatabases(archive, live).get('accounts')!;
    expect(g.added).toEqual([
      { kind: 'user_group', name: 'family' },
      { kind: 'user_group_member', name: 'family / alice' },
      { kind: 'user_group_member', name: 'g9 / alice' },
    ]);
    expect(g.changed).toEqual([]);
    expect(g.removed).toEqual([]);
  });

  it('compares each settings column as its own kind, and sealed bytes as stored', () => {
    const s = (hostname: string, pass: Buffer | null) => ({
      id: 1n,
      hostname,
      timezone: 'UTC',
      backup_passphrase: pass,
      updated_at: 'x',
    });
    const g = compareDatabases(
      { settings: [s('nas', Buffer.from('a'))] },
      { settings: [s('box', Buffer.from('b'))] },
    ).get('system')!;
    expect(g.changed).toEqual([
      { kind: 'hostname', name: '' },
      { kind: 'backup_passphrase', name: '' },
    ]);
  });

  it('sorts by name in code point order, table by table in registry order', () => {
    const archive: DbRows = {
      notify_channels: [
        { id: 'b', name: '\u{1F600}' },
        { id: 'a', name: '\uFF21' },
      ],
      notify_event_severity: [{ event_type: 'a.b', severity: 'info' }],
    };
    const g = compareDatabases(archive, {}).get('notifications')!;
    expect(g.added.map((i) => i.name)).toEqual(['\uFF21', '\u{1F600}', 'a.b']);
  });
});
