import { describe, expect, it } from 'vitest';
import { decideFiles, type LiveFiles, type PathKind, pathsToInspect } from './files.ts';

const root = (
  r: string,
  files: LiveFiles['custom_config']['files'] = [],
  rootKind: PathKind = 'directory',
) => ({ root: r, rootKind, files });
const live = (over: Partial<LiveFiles> = {}): LiveFiles => ({
  custom_config: root('/etc/appliance'),
  templates: root('/var/lib/appliance/catalog'),
  stacks: root('/var/lib/appliance/stacks'),
  ...over,
});
const decide = (
  archive: Record<string, string>,
  l: LiveFiles,
  kinds: Record<string, PathKind> = {},
  envs: string[] = [],
) =>
  decideFiles({
    archive: new Map(Object.entries(archive)),
    live: l,
    kinds: new Map(Object.entries(kinds)),
    stacksWithEnv: envs,
  });

describe('file groups', () => {
  it('archive only → added, different hash → changed, live only → removed', () => {
    const d = decide(
      {
        'custom/smb.custom.conf': 'A',
        'custom/new.custom.conf': 'N',
        'templates/main/x/compose.yaml': 'T',
        'stacks/web/meta.json': 'M',
      },
      live({
        custom_config: root('/etc/appliance', [
          { rel: 'smb.custom.conf', kind: 'file', sha256: 'B' },
          { rel: 'x.custom.conf', kind: 'file', sha256: 'X' },
        ]),
        templates: root('/var/lib/appliance/catalog', [
          { rel: 'main/x/compose.yaml', kind: 'symlink' },
          { rel: 'main/y/compose.yaml', kind: 'file', sha256: 'Y' },
        ]),
        stacks: root('/var/lib/appliance/stacks', [{ rel: 'web/meta.json', kind: 'file', sha256: 'M' }]),
      }),
    );
    expect(d.unsafe).toBeNull();
    expect(d.changes.get('custom_config')).toEqual({
      added: [{ kind: 'custom_config_file', name: 'new.custom.conf' }],
      changed: [{ kind: 'custom_config_file', name: 'smb.custom.conf' }],
      removed: [{ kind: 'custom_config_file', name: 'x.custom.conf' }],
    });
    // A non-regular entry under the catalog is not unsafe: it is changed (or removed).
    expect(d.changes.get('templates')).toEqual({
      added: [],
      changed: [{ kind: 'template_file', name: 'main/x/compose.yaml' }],
      removed: [{ kind: 'template_file', name: 'main/y/compose.yaml' }],
    });
    expect(d.changes.get('stacks')).toEqual({ added: [], changed: [], removed: [] });
  });
});

describe('restore_path_unsafe', () => {
  it('refuses an archive entry under custom/ that is not a *.custom.conf, with empty file groups', () => {
    const d = decide({ 'custom/evil.sh': 'x', 'custom/a.custom.conf': 'y' }, live());
    expect(d.unsafe).toEqual({ path: 'custom/evil.sh', reason: 'is not a *.custom.conf file' });
    for (const c of ['custom_config', 'templates', 'stacks'] as const) {
      expect(d.changes.get(c)).toEqual({ added: [], changed: [], removed: [] });
    }
  });

  it("refuses a stacks/ entry that is not a stack's docker-compose.yml or meta.json", () => {
    expect(decide({ 'stacks/web/.env': 'x' }, live()).unsafe?.reason).toBe(
      "is not a stack's docker-compose.yml or meta.json",
    );
    expect(decide({ 'stacks/Bad Name/meta.json': 'x' }, live()).unsafe?.path).toBe(
      'stacks/Bad Name/meta.json',
    );
  });

  it('refuses a live *.custom.conf that is a symbolic link, archived or not', () => {
    const d = decide(
      {},
      live({ custom_config: root('/etc/appliance', [{ rel: 'linked.custom.conf', kind: 'symlink' }]) }),
    );
    expect(d.unsafe).toEqual({
      path: '/etc/appliance/linked.custom.conf',
      reason: 'is a symbolic link, which is never followed',
    });
  });

  it('refuses a live root that is a symbolic link or not a directory; a missing root is empty', () => {
    expect(decide({}, live({ stacks: root('/var/lib/appliance/stacks', [], 'symlink') })).unsafe?.path).toBe(
      '/var/lib/appliance/stacks',
    );
    expect(
      decide({}, live({ templates: root('/var/lib/appliance/catalog', [], 'file') })).unsafe?.reason,
    ).toBe('is not a directory');
    expect(
      decide({ 'templates/a': 'x' }, live({ templates: root('/var/lib/appliance/catalog', [], 'missing') }))
        .unsafe,
    ).toBeNull();
  });

  it('checks each component of a path to be added (a symlinked directory on the way)', () => {
    const l = live();
    const archive = { 'custom/samba/new.custom.conf': 'x' };
    expect(pathsToInspect(new Map(Object.entries(archive)), l, [])).toEqual([
      '/etc/appliance/samba/new.custom.conf',
    ]);
    const d = decide(archive, l, { '/etc/appliance/samba': 'symlink' });
    expect(d.unsafe).toEqual({
      path: '/etc/appliance/samba',
      reason: 'is a symbolic link, which is never followed',
    });
    expect(decide(archive, l, { '/etc/appliance/samba': 'file' }).unsafe?.reason).toBe('is not a directory');
    expect(decide(archive, l, { '/etc/appliance/samba': 'missing' }).unsafe).toBeNull();
  });

  it("checks a restorable stack's .env only when secrets carry it", () => {
    const archive = { 'stacks/web/docker-compose.yml': 'x' };
    const kinds = {
      '/var/lib/appliance/stacks/web': 'directory',
      '/var/lib/appliance/stacks/web/.env': 'symlink',
    } as const;
    expect(decide(archive, live(), kinds, []).unsafe).toBeNull();
    expect(decide(archive, live(), kinds, ['web']).unsafe).toEqual({
      path: '/var/lib/appliance/stacks/web/.env',
      reason: 'is a symbolic link, which is never followed',
    });
  });

  it('reports only the first problem: categories in order, archive entries before live paths', () => {
    const d = decide(
      { 'stacks/x/evil': 'x' },
      live({ custom_config: root('/etc/appliance', [{ rel: 'z.custom.conf', kind: 'other' }]) }),
    );
    expect(d.unsafe).toEqual({ path: '/etc/appliance/z.custom.conf', reason: 'is not a regular file' });
  });
});
