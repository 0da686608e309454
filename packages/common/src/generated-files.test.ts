import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GeneratedFileRecord, type GeneratedFileRow, sha256 } from './generated-files.ts';
import { createHostPaths } from './host-paths.ts';

/** The store in memory; `fail` makes the next writes reject. */
class MemoryStore {
  rows = new Map<string, GeneratedFileRow>();
  writes = 0;
  fail = false;
  all = () => [...this.rows.values()];
  upsert = async (row: GeneratedFileRow) => {
    if (this.fail) throw new Error('disk full');
    this.writes += 1;
    this.rows.set(row.path, row);
  };
  remove = async (p: string) => {
    this.writes += 1;
    this.rows.delete(p);
  };
}

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-files-'));
  roots.push(root);
  const paths = createHostPaths({ root });
  const store = new MemoryStore();
  const errors: unknown[] = [];
  const deps = {
    store,
    paths,
    clock: { now: () => new Date('2026-03-01T10:00:00.000Z') },
    log: { error: (message: string, fields?: Record<string, unknown>) => errors.push({ message, fields }) },
  };
  return { root, paths, store, errors, deps, record: new GeneratedFileRecord(deps) };
}

describe('GeneratedFileRecord', () => {
  it('records what was written under its logical path, once per content', async () => {
    const { paths, store, record } = setup();
    await record.record(paths.sambaConf, '[global]\n');
    expect(store.all()).toEqual([
      {
        path: '/etc/appliance/samba/smb.conf',
        sha256: sha256('[global]\n'),
        content: '[global]\n',
        writtenAt: '2026-03-01T10:00:00.000Z',
      },
    ]);
    expect(record.list().map((f) => f.real)).toEqual([paths.sambaConf]);
    await record.record(paths.sambaConf, '[global]\n');
    expect(store.writes).toBe(1);
    await record.record(paths.sambaConf, '[global]\nx = 1\n');
    expect(store.writes).toBe(2);
  });

  it('reads the file when no text is given, keeps no content for binary data, forgets a missing file', async () => {
    const { root, store, record } = setup();
    const file = path.join(root, 'unit.mount');
    fs.writeFileSync(file, Buffer.from([0x41, 0x00, 0x42]));
    await record.record(file);
    // under the root prefix: stored by its logical path
    expect(store.rows.get('/unit.mount')).toMatchObject({
      content: null,
      sha256: sha256(Buffer.from([0x41, 0x00, 0x42])),
    });
    fs.rmSync(file);
    await record.record(file);
    expect(store.all()).toEqual([]);
    expect(record.list()).toEqual([]);
  });

  it('loads the stored records with their real paths; forgetUnder drops a folder’s files', async () => {
    const { paths, store, record, deps } = setup();
    const compose = (name: string) => path.join(paths.stacksDir, name, 'docker-compose.yml');
    await record.record(compose('a'), 'services: {}\n');
    await record.record(compose('b'), 'services: {}\n');
    const again = new GeneratedFileRecord(deps);
    expect(again.list().map((f) => f.real)).toEqual([compose('a'), compose('b')]);
    await again.forgetUnder(path.join(paths.stacksDir, 'a'));
    expect(again.list().map((f) => f.real)).toEqual([compose('b')]);
    expect([...store.rows.keys()]).toEqual([paths.logical(compose('b'))]);
  });

  it('is in force at once; recordQuietly logs a store failure instead of throwing', async () => {
    const { paths, store, record, errors } = setup();
    store.fail = true;
    record.recordQuietly(paths.snapraidConf, 'parity /mnt/parity1/snapraid.parity\n');
    expect(record.list().map((f) => f.content)).toEqual(['parity /mnt/parity1/snapraid.parity\n']);
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([
      {
        message: 'recording a generated file failed',
        fields: { file: paths.snapraidConf, error: 'Error: disk full' },
      },
    ]);
  });
});
