import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackArchive } from '../test-support/craft.ts';
import { createSandbox, type Sandbox } from '../test-support/sandbox.ts';
import { archiveStream } from './archive-writer.ts';
import { readArchive } from './archive-reader.ts';
import { exportFilename, startExport } from './export.ts';
import { clearTempRoot, makePrivateTempDir, tempRoot } from './temp-dir.ts';

describe('export', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = createSandbox({ passphrase: null });
  });
  afterAll(() => sb.close());

  it('makes private (0700) temp directories and clears leftovers of a crash at startup', async () => {
    const dir = await makePrivateTempDir(sb.paths, 'preview');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(tempRoot(sb.paths)).mode & 0o777).toBe(0o700);
    fs.writeFileSync(path.join(dir, 'state.db'), 'left over');
    await clearTempRoot(sb.paths);
    expect(fs.readdirSync(tempRoot(sb.paths))).toEqual([]);
  });

  it('names the file after the hostname and the snapshot time', () => {
    expect(exportFilename('nas', '2026-09-01T03:00:00.000Z')).toBe(
      'appliance-config-nas-20260901T030000Z.tar.zst',
    );
  });

  it('archives regular files only (symbolic links and other entries are skipped and logged), never .env, config.toml or smb.conf', async () => {
    fs.symlinkSync('/etc/passwd', sb.paths.real('/etc/appliance/evil.custom.conf'));
    fs.symlinkSync('/etc', sb.paths.real('/var/lib/appliance/catalog/main/linked'));
    fs.mkdirSync(sb.paths.real('/var/lib/appliance/stacks/Not_Valid'));
    fs.writeFileSync(sb.paths.real('/var/lib/appliance/stacks/Not_Valid/meta.json'), '{}');
    const logs: string[] = [];
    const r = await startExport({
      paths: sb.paths,
      db: sb.db,
      sealer: sb.sealer,
      machineKey: () => sb.key,
      appVersion: '1.4.0',
      clock: { now: () => new Date('2026-09-01T03:00:00.000Z') },
      log: (m) => logs.push(m),
    });
    const chunks: Buffer[] = [];
    for await (const c of r.stream) chunks.push(c as Buffer);
    await r.done;
    const names = [...(await unpackArchive(Buffer.concat(chunks))).keys()];
    expect(names).toEqual([
      'state.db',
      'custom/samba/media.custom.conf',
      'custom/smb.custom.conf',
      'templates/main/nextcloud/compose.yaml',
      'templates/main/nextcloud/meta.json',
      'stacks/web/docker-compose.yml',
      'stacks/web/meta.json',
      'manifest.json',
    ]);
    expect(logs.join('\n')).toMatch(/evil\.custom\.conf/);
    expect(logs.join('\n')).toMatch(/catalog\/main\/linked/);
    // The temp directory is gone once the stream ended; the snapshot stands alone (no WAL).
    expect(fs.readdirSync(tempRoot(sb.paths))).toEqual([]);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-verify-'));
    const contents = await readArchive(Readable.from(chunks), { tempDir: tmp });
    expect(fs.readFileSync(contents.stateDbPath).readUInt8(18)).toBe(1); // file format: rollback journal
    fs.rmSync(tmp, { recursive: true });
  });

  it('fails the stream when a file shrinks while it is archived, so the manifest never arrives', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shrink-'));
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'short');
    let ended: unknown = 'not yet';
    const stream = archiveStream(
      [
        {
          name: 'templates/f',
          open: async () => ({ handle: await fs.promises.open(file), size: 1_000_000 }),
        },
      ],
      { createdAt: '2026-09-01T03:00:00.000Z', hostname: 'nas', appVersion: '1' },
      (err) => {
        ended = err;
      },
    );
    const err = await (async () => {
      for await (const _ of stream) void _;
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/shrank/);
    expect(String(ended)).toMatch(/shrank/);
    fs.rmSync(dir, { recursive: true });
  });
});
