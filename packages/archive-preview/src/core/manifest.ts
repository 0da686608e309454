/** `manifest.json` (01 §1.3): building it for export and validating it on read (rule 9). */
import * as v from 'valibot';
import { compareCodePoints } from './codepoint.ts';
import { invalidArchive } from './errors.ts';

export const FORMAT_VERSION = 1;

const RFC3339_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

const ManifestSchema = v.object({
  formatVersion: v.literal(FORMAT_VERSION),
  createdAt: v.pipe(
    v.string(),
    v.regex(RFC3339_UTC_MILLIS),
    v.check((s) => !Number.isNaN(Date.parse(s)) && new Date(s).toISOString() === s, 'not a real time'),
  ),
  hostname: v.pipe(v.string(), v.minLength(1), v.maxLength(253)),
  appVersion: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  checksums: v.record(v.string(), v.pipe(v.string(), v.regex(SHA256_HEX))),
});

export type Manifest = v.InferOutput<typeof ManifestSchema>;

/** Parses and validates the manifest bytes; unknown fields are ignored. */
export function parseManifest(bytes: Uint8Array): Manifest {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidArchive('manifest.json is not UTF-8', 'manifest.json');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidArchive('manifest.json is not JSON', 'manifest.json');
  }
  const result = v.safeParse(ManifestSchema, json);
  if (!result.success) {
    const issue = result.issues[0];
    const where = issue?.path?.map((p) => String(p.key)).join('.') ?? '';
    throw invalidArchive(`manifest.json is not valid${where ? ` (field ${where})` : ''}`, 'manifest.json');
  }
  return result.output;
}

/** The manifest bytes as export writes them: 2-space JSON, checksum keys sorted, trailing newline. */
export function renderManifest(input: {
  createdAt: string;
  hostname: string;
  appVersion: string;
  checksums: ReadonlyMap<string, string>;
}): string {
  const checksums: Record<string, string> = {};
  for (const name of [...input.checksums.keys()].sort(compareCodePoints)) {
    checksums[name] = input.checksums.get(name) as string;
  }
  const manifest = {
    formatVersion: FORMAT_VERSION,
    createdAt: input.createdAt,
    hostname: input.hostname,
    appVersion: input.appVersion,
    checksums,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Rules 10 and 11: the regular files equal the checksum keys and every hash matches. */
export function verifyChecksums(manifest: Manifest, files: ReadonlyMap<string, string>): void {
  const listed = Object.keys(manifest.checksums).sort(compareCodePoints);
  for (const name of listed) {
    if (!files.has(name)) throw invalidArchive('an entry listed in manifest.json is missing', name);
  }
  for (const name of [...files.keys()].sort(compareCodePoints)) {
    if (!Object.hasOwn(manifest.checksums, name)) {
      throw invalidArchive('the archive holds a file manifest.json does not list', name);
    }
  }
  for (const name of listed) {
    if (files.get(name) !== manifest.checksums[name]) {
      throw invalidArchive('an entry does not match its checksum in manifest.json', name);
    }
  }
}
