/**
 * "The preview writes nothing" (01 §4.12), asserted around every preview a test runs: a logical
 * dump of the live database, a listing of the sandbox outside the temp directory, an empty temp
 * directory afterwards, and a filesystem port that recorded no path under /mnt.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import type { PreviewResponse } from '../core/preview.ts';
import { type FsPort, nodeFs } from '../node/live-files.ts';
import { type PreviewDeps, previewArchive } from '../node/preview.ts';
import { tempRoot } from '../node/temp-dir.ts';
import { dumpDatabase, type Sandbox, treeListing } from './sandbox.ts';

export function recordingFs(sb: Sandbox, seen: string[]): FsPort {
  const note = (real: string) => seen.push(sb.paths.logical(real) ?? real);
  return {
    lstat(p) {
      note(p);
      return nodeFs.lstat(p);
    },
    readdir(p) {
      note(p);
      return nodeFs.readdir(p);
    },
    sha256(p) {
      note(p);
      return nodeFs.sha256(p);
    },
  };
}

/** Runs a preview and asserts it wrote nothing; returns the response or the error it threw. */
export async function checkedPreview(
  sb: Sandbox,
  archive: Uint8Array,
  passphrase?: string,
  extra: Partial<PreviewDeps> = {},
): Promise<{ response?: PreviewResponse; error?: unknown }> {
  const tmpRoot = tempRoot(sb.paths);
  const dbBefore = dumpDatabase(sb.db);
  const treeBefore = treeListing(sb.root, [tmpRoot]);
  const seen: string[] = [];
  let response: PreviewResponse | undefined;
  let error: unknown;
  try {
    response = await previewArchive(
      sb.deps({ fs: recordingFs(sb, seen), ...extra }),
      Readable.from([Buffer.from(archive)]),
      passphrase,
    );
  } catch (err) {
    error = err;
  }
  expect(dumpDatabase(sb.db)).toBe(dbBefore);
  expect(treeListing(sb.root, [tmpRoot])).toEqual(treeBefore);
  expect(fs.existsSync(tmpRoot) ? fs.readdirSync(tmpRoot) : []).toEqual([]);
  expect(seen.filter((p) => p === '/mnt' || p.startsWith('/mnt/'))).toEqual([]);
  return { ...(response ? { response } : {}), ...(error !== undefined ? { error } : {}) };
}

/** The groups as `{category: {added: [names], changed: [...], removed: [...]}}` for terse assertions. */
export function groupNames(
  r: PreviewResponse,
): Record<string, { added: string[]; changed: string[]; removed: string[] }> {
  const out: Record<string, { added: string[]; changed: string[]; removed: string[] }> = {};
  for (const g of r.groups) {
    const f = (items: { kind: string; name: string }[]) => items.map((i) => `${i.kind}=${i.name}`);
    out[g.category] = { added: f(g.added), changed: f(g.changed), removed: f(g.removed) };
  }
  return out;
}
