import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { AppError } from '@appliance/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CraftEntry, craftArchive, manifestFor, tarBytes, zstd } from '../test-support/craft.ts';
import { readArchive } from './archive-reader.ts';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reader-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const DB = 'SQLite format 3\u0000 (not opened by the reader)';
const base = { 'state.db': DB, 'custom/smb.custom.conf': '[global]\n' };

async function failure(bytes: Uint8Array | AsyncIterable<Uint8Array>): Promise<AppError> {
  const source = bytes instanceof Uint8Array ? Readable.from([Buffer.from(bytes)]) : bytes;
  const dir = fs.mkdtempSync(path.join(tmp, 'run-'));
  const err = (await readArchive(source, { tempDir: dir }).then(
    () => null,
    (e: unknown) => e,
  )) as AppError | null;
  if (err === null) throw new Error('the archive was accepted');
  return err;
}

/** An archive with `files` listed in its manifest plus raw `extra` entries (not listed). */
const withExtra = (extra: CraftEntry[], files: Record<string, string> = base) => craftArchive(files, extra);

describe('readArchive', () => {
  it('reads a valid archive: hashes every file, keeps the manifest, writes only state.db', async () => {
    const archive = craftArchive({ ...base, 'secrets.age': 'S', 'templates/main/a/compose.yaml': 'x' }, [
      { name: 'templates/', type: 'Directory' },
    ]);
    const r = await readArchive(Readable.from([archive]), { tempDir: tmp });
    expect([...r.files.keys()].sort()).toEqual([
      'custom/smb.custom.conf',
      'secrets.age',
      'state.db',
      'templates/main/a/compose.yaml',
    ]);
    expect(r.manifest.hostname).toBe('nas');
    expect(r.secretsAge?.toString()).toBe('S');
    expect(r.identityAge).toBeNull();
    expect(r.directories).toEqual(['templates']);
    expect(fs.readdirSync(tmp)).toEqual(['state.db']);
    expect(fs.readFileSync(r.stateDbPath, 'utf8')).toBe(DB);
    expect(fs.statSync(r.stateDbPath).mode & 0o777).toBe(0o600);
    expect(r.compressedBytes).toBe(archive.length);
  });

  it('extracts every regular file below extractTo in the import mode', async () => {
    const out = path.join(tmp, 'extract');
    await readArchive(Readable.from([craftArchive({ ...base, 'stacks/web/meta.json': '{}' })]), {
      tempDir: tmp,
      extractTo: out,
    });
    expect(fs.readFileSync(path.join(out, 'stacks/web/meta.json'), 'utf8')).toBe('{}');
    expect(fs.readFileSync(path.join(out, 'custom/smb.custom.conf'), 'utf8')).toBe('[global]\n');
    expect(fs.statSync(path.join(out, 'state.db')).mode & 0o777).toBe(0o600);
  });

  it('accepts entries in any order (manifest first) and a long name through a pax header', async () => {
    const long = `templates/${'d'.repeat(150)}/${'f'.repeat(120)}.yaml`;
    const files = { ...base, [long]: 'y' };
    const bytes = zstd(
      tarBytes([
        { name: 'manifest.json', body: manifestFor(files) },
        ...Object.entries(files).map(([name, body]) => ({ name, body })),
      ]),
    );
    const r = await readArchive(Readable.from([bytes]), { tempDir: tmp });
    expect(r.files.has(long)).toBe(true);
  });

  const entryCases: [string, CraftEntry[], string | undefined][] = [
    ['path traversal', [{ name: 'custom/../../etc/passwd', body: 'x' }], 'custom/../../etc/passwd'],
    ['an absolute path', [{ name: '/etc/passwd', body: 'x' }], '/etc/passwd'],
    ['a leading ./', [{ name: './custom/a.custom.conf', body: 'x' }], './custom/a.custom.conf'],
    [
      'a symbolic link',
      [{ name: 'custom/l.custom.conf', type: 'SymbolicLink', linkpath: '/etc/shadow' }],
      'custom/l.custom.conf',
    ],
    [
      'a hard link',
      [{ name: 'custom/h.custom.conf', type: 'Link', linkpath: 'state.db' }],
      'custom/h.custom.conf',
    ],
    ['a character device', [{ name: 'custom/dev', type: 'CharacterDevice' }], 'custom/dev'],
    ['a block device', [{ name: 'custom/blk', type: 'BlockDevice' }], 'custom/blk'],
    ['a FIFO', [{ name: 'custom/fifo', type: 'FIFO' }], 'custom/fifo'],
    ['a duplicate name', [{ name: 'state.db', body: DB }], 'state.db'],
    [
      'a name that is a file and a directory',
      [{ name: 'custom/smb.custom.conf/', type: 'Directory' }],
      'custom/smb.custom.conf',
    ],
    [
      'a file that is the parent of another entry',
      [{ name: 'custom/smb.custom.conf/x', body: 'x' }],
      'custom/smb.custom.conf/x',
    ],
    ['an unknown top-level entry', [{ name: 'etc/passwd', body: 'x' }], 'etc/passwd'],
    ['an unknown top-level file', [{ name: 'config.toml', body: 'x' }], 'config.toml'],
    ['a backslash', [{ name: 'custom\\a.custom.conf', body: 'x' }], 'custom\\a.custom.conf'],
    ['a control character', [{ name: 'custom/a\u0001.custom.conf', body: 'x' }], 'custom/a?.custom.conf'],
    ['an empty segment', [{ name: 'custom//a.custom.conf', body: 'x' }], 'custom//a.custom.conf'],
    ['a file name ending in /', [{ name: 'custom/a.custom.conf/', body: 'x', type: 'File' }], undefined],
  ];
  for (const [what, extra, entry] of entryCases) {
    it(`refuses ${what} with invalid_archive`, async () => {
      const err = await failure(withExtra(extra));
      expect(err.status).toBe(400);
      expect(err.code).toBe('invalid_archive');
      if (entry !== undefined) expect(err.details?.['entry']).toBe(entry);
      for (const run of fs.readdirSync(tmp)) {
        expect(fs.readdirSync(path.join(tmp, run)).filter((n) => n !== 'state.db')).toEqual([]);
      }
    });
  }

  it('refuses a name over 1024 bytes', async () => {
    const err = await failure(withExtra([{ name: `templates/${'x'.repeat(1100)}`, body: 'x' }]));
    expect(err.code).toBe('invalid_archive');
  });

  it('refuses a name that is not UTF-8', async () => {
    // A pax path carrying a lone 0xff byte decodes to U+FFFD.
    const err = await failure(withExtra([{ name: `templates/bad\u00ff`, body: 'x', pax: true }]).subarray(0));
    expect(err.code).toBe('invalid_archive');
  });

  it('refuses an extra file the manifest does not list', async () => {
    const err = await failure(withExtra([{ name: 'templates/extra.yaml', body: 'x' }]));
    expect(err.code).toBe('invalid_archive');
    expect(err.details?.['entry']).toBe('templates/extra.yaml');
  });

  it('refuses a tampered file (checksum mismatch)', async () => {
    const files = { ...base };
    const bytes = zstd(
      tarBytes([
        { name: 'state.db', body: DB },
        { name: 'custom/smb.custom.conf', body: '[global]\n  tampered = yes\n' },
        { name: 'manifest.json', body: manifestFor(files) },
      ]),
    );
    const err = await failure(bytes);
    expect(err.code).toBe('invalid_archive');
    expect(err.details?.['entry']).toBe('custom/smb.custom.conf');
  });

  it('refuses a listed file that is missing', async () => {
    const bytes = zstd(
      tarBytes([
        { name: 'state.db', body: DB },
        { name: 'manifest.json', body: manifestFor(base) },
      ]),
    );
    const err = await failure(bytes);
    expect(err.details?.['entry']).toBe('custom/smb.custom.conf');
  });

  it('refuses an archive without state.db', async () => {
    const err = await failure(craftArchive({ 'custom/smb.custom.conf': 'x' }));
    expect(err.code).toBe('invalid_archive');
    expect(err.details?.['entry']).toBe('state.db');
  });

  it('refuses an archive without manifest.json', async () => {
    const err = await failure(zstd(tarBytes([{ name: 'state.db', body: DB }])));
    expect(err.details?.['entry']).toBe('manifest.json');
  });

  it('refuses a manifest of another format version, or not JSON', async () => {
    const v2 = zstd(
      tarBytes([
        { name: 'state.db', body: DB },
        { name: 'manifest.json', body: manifestFor({ 'state.db': DB }, { formatVersion: 2 }) },
      ]),
    );
    expect((await failure(v2)).details?.['entry']).toBe('manifest.json');
    const junk = zstd(
      tarBytes([
        { name: 'state.db', body: DB },
        { name: 'manifest.json', body: '{nope' },
      ]),
    );
    expect((await failure(junk)).code).toBe('invalid_archive');
  });

  it('refuses garbage, an empty upload, a truncated upload and a truncated tar', async () => {
    const good = craftArchive(base);
    for (const bytes of [
      Buffer.from('this is not zstd at all, just text'),
      Buffer.alloc(0),
      good.subarray(0, Math.floor(good.length / 2)),
      zstd(tarBytes([{ name: 'state.db', body: DB }], { end: false }).subarray(0, 700)),
      zstd(Buffer.from('plain text inside a valid zstd frame, not a tar stream at all '.repeat(20))),
    ]) {
      const err = await failure(bytes);
      expect(err.status).toBe(400);
      expect(err.code).toBe('invalid_archive');
    }
  });

  it('refuses bytes after the last zstd frame, in the same chunk or a later one (zstd -t fails too)', async () => {
    const good = craftArchive(base);
    const garbage = Buffer.from('trailing garbage after the frame');
    const cases: [string, Buffer[]][] = [
      ['garbage in the last chunk', [Buffer.concat([good, garbage])]],
      ['garbage in a chunk of its own', [good, garbage]],
      ['zero bytes', [Buffer.concat([good, Buffer.alloc(4096)])]],
      ['garbage after a second frame', [Buffer.concat([good, zstd(Buffer.from('x')), garbage])]],
      ['a truncated second frame', [Buffer.concat([good, zstd(Buffer.from('x')).subarray(0, 6)])]],
    ];
    for (const [what, chunks] of cases) {
      const err = await failure(Readable.from(chunks));
      expect([err.status, err.code], what).toEqual([400, 'invalid_archive']);
      expect(err.message, what).toMatch(/not valid zstd|truncated/);
    }
    // The reference tool agrees: the file with garbage after its frame is not valid zstd.
    const file = path.join(tmp, 'trailing.tar.zst');
    fs.writeFileSync(file, Buffer.concat([good, garbage]));
    expect(spawnSync('zstd', ['-q', '-t', file]).status).not.toBe(0);
  });

  it('reads every frame of a multi-frame archive, wherever the frames and the chunks end', async () => {
    const files = { ...base, 'templates/main/a/compose.yaml': 'y'.repeat(70_000) };
    const tar = tarBytes([
      ...Object.entries(files).map(([name, body]) => ({ name, body })),
      { name: 'manifest.json', body: manifestFor(files) },
    ]);
    // three frames, the tar split across them, then an empty frame (as node's compressor ends an export)
    const cut = [0, 10_000, 50_001, tar.length];
    const frames = Buffer.concat([
      ...cut.slice(1).map((end, i) => zstd(tar.subarray(cut[i], end))),
      zstd(Buffer.alloc(0)),
    ]);
    const file = path.join(tmp, 'frames.tar.zst');
    fs.writeFileSync(file, frames);
    expect(spawnSync('zstd', ['-q', '-t', file]).status).toBe(0);
    for (const size of [frames.length, 4096, 7, 1]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < frames.length; i += size) chunks.push(frames.subarray(i, i + size));
      const r = await readArchive(Readable.from(chunks), { tempDir: fs.mkdtempSync(path.join(tmp, 'ok-')) });
      expect([...r.files.keys()].sort(), `chunks of ${size}`).toEqual(Object.keys(files).sort());
      expect(r.compressedBytes).toBe(frames.length);
    }
  });

  it('refuses a NUL inside a name (ustar field or pax record) instead of reading the name up to it', async () => {
    // The manifest lists the name as the parser used to read it (up to the NUL), so only the NUL
    // check stands between this archive and a pass.
    const truncated = 'custom/a.custom.conf';
    const listed = { ...base, [truncated]: 'x' };
    for (const pax of [false, true]) {
      const bytes = zstd(
        tarBytes([
          ...Object.entries(base).map(([name, body]) => ({ name, body })),
          { name: `${truncated}\u0000/../../../etc/cron.d/x`, body: 'x', pax },
          { name: 'manifest.json', body: manifestFor(listed) },
        ]),
      );
      const err = await failure(bytes);
      expect([err.status, err.code], `pax ${pax}`).toEqual([400, 'invalid_archive']);
      expect(err.message).toContain('an entry name contains a NUL character');
    }
    // NUL padding after a name is how ustar ends it: still accepted.
    const r = await readArchive(Readable.from([craftArchive(listed)]), {
      tempDir: fs.mkdtempSync(path.join(tmp, 'ok-')),
    });
    expect(r.files.has(truncated)).toBe(true);
  });

  it('refuses a gzip stream inside the zstd frame', async () => {
    const err = await failure(zstd(zlib.gzipSync(tarBytes([{ name: 'state.db', body: DB }]))));
    expect(err.code).toBe('invalid_archive');
  });

  it('refuses a sparse file (GNU pax sparse headers)', async () => {
    const pax = 'GNU.sparse.major=1\n';
    const record = `${String(pax.length + 3 + String(pax.length).length).padStart(1)} ${pax}`;
    const bytes = zstd(
      tarBytes([
        { name: 'PaxHeader/x', type: 'ExtendedHeader', body: `${record.length} ${pax}` },
        { name: 'state.db', body: DB },
      ]),
    );
    const err = await failure(bytes);
    expect(err.code).toBe('invalid_archive');
  });

  it('refuses a zstd frame whose window is over 16 MiB', async () => {
    const z = zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_windowLog]: 26 } });
    const chunks: Buffer[] = [];
    z.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise((r) => z.on('end', r));
    const tar = tarBytes([{ name: 'state.db', body: DB }]);
    z.write(tar.subarray(0, 512));
    z.flush();
    z.end(tar.subarray(512));
    await done;
    const err = await failure(Buffer.concat(chunks));
    expect(err.code).toBe('invalid_archive');
    expect(err.message).toMatch(/window/);
  });

  it('answers 413 when declared file sizes exceed 512 MiB, before reading content', async () => {
    const header = tarBytes([{ name: 'templates/huge', body: '', size: 600 * 1024 * 1024 }], { end: false });
    const err = await failure(zstd(header));
    expect(err.status).toBe(413);
    expect(err.code).toBe('archive_too_large');
    expect(err.details?.['limitBytes']).toBe(512 * 1024 * 1024);
  });

  it('answers 413 for a compression bomb past the decompressed limit, mid-stream', async () => {
    // 600 MiB of zeros after a valid start compress to a few kB.
    const z = zlib.createZstdCompress();
    const compressed: Buffer[] = [];
    z.on('data', (c: Buffer) => compressed.push(c));
    const zero = Buffer.alloc(8 * 1024 * 1024);
    await pipeline(
      Readable.from(
        (function* () {
          yield tarBytes([{ name: 'state.db', body: DB }], { end: false });
          for (let i = 0; i < 75; i++) yield zero;
        })(),
      ),
      z,
    );
    const bomb = Buffer.concat(compressed);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const err = await failure(bomb);
    expect(err.status).toBe(413);
    expect(err.details?.['limitBytes']).toBe(576 * 1024 * 1024);
  }, 180_000);

  it('answers 413 when the archive part itself is over 512 MiB, without reading it all', async () => {
    let sent = 0;
    const chunk = Buffer.alloc(4 * 1024 * 1024, 0x41);
    async function* endless() {
      while (sent < 600 * 1024 * 1024) {
        sent += chunk.length;
        yield chunk;
      }
    }
    // Not zstd: the decoder fails first unless the counter is in front of it. A valid frame start
    // followed by raw blocks would be slow to build; the counter check is exercised with a
    // skippable frame (magic 0x184D2A5?) that zstd reads and discards.
    const skippable = Buffer.alloc(8);
    skippable.writeUInt32LE(0x184d2a50, 0);
    skippable.writeUInt32LE(0xffffffff, 4);
    async function* source() {
      yield skippable;
      yield* endless();
    }
    const err = await failure(source());
    expect(err.status).toBe(413);
    expect(err.details?.['limitBytes']).toBe(512 * 1024 * 1024);
    expect(sent).toBeLessThan(520 * 1024 * 1024);
  }, 180_000);
});
