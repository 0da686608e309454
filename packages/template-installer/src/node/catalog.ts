/**
 * The catalog (02 §1.1, §12): sources in order, the first source holding an id wins (even when
 * its template is invalid), parsed templates cached by (source, id, file SHA-256).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { byteOrder, isTemplateId } from '../core/names.ts';
import { parseTemplate, type TemplateResult } from '../core/template.ts';

export type SourceKind = 'builtin' | 'directory' | 'https';

export interface CatalogSourceRow {
  id: string;
  kind: SourceKind;
  position: number;
  url: string | null;
  serial: number | null;
  lastRefreshedAt: string | null;
  lastError: string | null;
}

export interface SourceView {
  id: string;
  kind: SourceKind;
  position: number;
  url: string | null;
  serial: number | null;
  lastRefreshedAt: string | null;
  templateCount: number;
  error: string | null;
}

export interface TemplateView {
  id: string;
  source: string;
  revision: number | null;
  title: string;
  categories: string[];
  docs: string | null;
  webui: string | null;
  alsoIn: string[];
  stacks: string[];
  problems: { path: string; message: string }[];
}

export interface FoundTemplate {
  source: string;
  result: TemplateResult;
}

export const MAX_TEMPLATES_PER_SOURCE = 2000;

/** The catalog shipped inside this package. */
export const SHIPPED_CATALOG = fileURLToPath(new URL('../../catalog/', import.meta.url));

async function isRealDir(p: string): Promise<boolean> {
  try {
    const st = await fs.lstat(p);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}

async function isRegularFile(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isFile();
  } catch {
    return false;
  }
}

/** Template ids one source directory holds (byte order, at most 2000) and its error, if any. */
export async function listSourceIds(dir: string): Promise<{ ids: string[]; error: string | null }> {
  let names: string[];
  try {
    if (!(await isRealDir(dir)))
      return { ids: [], error: 'The source folder is missing or not a directory.' };
    names = await fs.readdir(dir);
  } catch {
    return { ids: [], error: 'The source folder cannot be read.' };
  }
  const ids: string[] = [];
  for (const name of names.filter(isTemplateId).sort(byteOrder)) {
    if (
      (await isRealDir(path.join(dir, name))) &&
      (await isRegularFile(path.join(dir, name, 'compose.yaml')))
    )
      ids.push(name);
  }
  if (ids.length > MAX_TEMPLATES_PER_SOURCE)
    return {
      ids: ids.slice(0, MAX_TEMPLATES_PER_SOURCE),
      error: `The source holds ${ids.length} templates; only the first ${MAX_TEMPLATES_PER_SOURCE} are used.`,
    };
  return { ids, error: null };
}

export interface Catalog {
  /** The winning source's template for an id, or null. */
  find(id: string): Promise<FoundTemplate | null>;
  /** GET /catalog; `stacksByTemplate` maps a template id to its non-pending stacks. */
  view(
    stacksByTemplate: ReadonlyMap<string, string[]>,
  ): Promise<{ sources: SourceView[]; templates: TemplateView[] }>;
}

export function createCatalog(options: {
  catalogDir: string;
  sources: () => Promise<CatalogSourceRow[]>;
}): Catalog {
  const cache = new Map<string, TemplateResult>();
  const ordered = async () => {
    const rows = await options.sources();
    const builtin = rows.find((r) => r.id === 'builtin') ?? {
      id: 'builtin',
      kind: 'builtin' as const,
      position: 0,
      url: null,
      serial: null,
      lastRefreshedAt: null,
      lastError: null,
    };
    return [builtin, ...rows.filter((r) => r.id !== 'builtin').sort((a, b) => a.position - b.position)];
  };
  const load = async (source: string, id: string): Promise<TemplateResult | null> => {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path.join(options.catalogDir, source, id, 'compose.yaml'));
    } catch {
      return null;
    }
    const key = `${source}\0${id}\0${createHash('sha256').update(bytes).digest('hex')}`;
    let result = cache.get(key);
    if (!result) {
      result = parseTemplate(bytes, { source, id });
      if (cache.size > 4096) cache.clear();
      cache.set(key, result);
    }
    return result;
  };
  const holds = async (source: string, id: string) => {
    const dir = path.join(options.catalogDir, source);
    if (!(await isRealDir(path.join(dir, id))) || !(await isRegularFile(path.join(dir, id, 'compose.yaml'))))
      return false;
    // The 2000-template cap only matters for very large sources.
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    if (names.length <= MAX_TEMPLATES_PER_SOURCE) return true;
    return (await listSourceIds(dir)).ids.includes(id);
  };
  return {
    async find(id) {
      if (!isTemplateId(id)) return null;
      for (const source of await ordered()) {
        if (!(await isRealDir(path.join(options.catalogDir, source.id)))) continue;
        if (await holds(source.id, id)) {
          // The first source holding the id wins, even when its file cannot be read.
          const result = (await load(source.id, id)) ?? {
            ok: false as const,
            problems: [{ path: '', message: 'the template file cannot be read' }],
            title: id,
            categories: [],
            revision: null,
          };
          return { source: source.id, result };
        }
      }
      return null;
    },
    async view(stacksByTemplate) {
      const sources: SourceView[] = [];
      const winners = new Map<string, { source: string; alsoIn: string[] }>();
      for (const s of await ordered()) {
        const { ids, error } = await listSourceIds(path.join(options.catalogDir, s.id));
        sources.push({
          id: s.id,
          kind: s.kind,
          position: s.position,
          url: s.url,
          serial: s.serial,
          lastRefreshedAt: s.lastRefreshedAt,
          templateCount: ids.length,
          error: s.lastError ?? error,
        });
        for (const id of ids) {
          const w = winners.get(id);
          if (w) w.alsoIn.push(s.id);
          else winners.set(id, { source: s.id, alsoIn: [] });
        }
      }
      const templates: TemplateView[] = [];
      for (const id of [...winners.keys()].sort(byteOrder)) {
        const w = winners.get(id)!;
        const r = await load(w.source, id);
        const stacks = [...(stacksByTemplate.get(id) ?? [])].sort(byteOrder);
        if (r?.ok) {
          const t = r.template;
          templates.push({
            id,
            source: w.source,
            revision: t.revision,
            title: t.title,
            categories: t.categories,
            docs: t.docs,
            webui: t.webui,
            alsoIn: w.alsoIn,
            stacks,
            problems: [],
          });
        } else {
          templates.push({
            id,
            source: w.source,
            revision: r && !r.ok ? r.revision : null,
            title: r && !r.ok ? r.title : id,
            categories: r && !r.ok ? r.categories : [],
            docs: null,
            webui: null,
            alsoIn: w.alsoIn,
            stacks,
            problems: r && !r.ok ? r.problems : [{ path: '', message: 'the template file cannot be read' }],
          });
        }
      }
      return { sources, templates };
    },
  };
}

async function treeDigest(dir: string): Promise<string | null> {
  const hash = createHash('sha256');
  const walk = async (rel: string): Promise<void> => {
    const entries = (await fs.readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) =>
      byteOrder(a.name, b.name),
    );
    for (const e of entries) {
      const p = path.join(rel, e.name);
      if (e.isDirectory()) {
        hash.update(`d\0${p}\0`);
        await walk(p);
      } else if (e.isFile()) {
        hash.update(`f\0${p}\0`);
        hash.update(await fs.readFile(path.join(dir, p)));
        hash.update('\0');
      }
    }
  };
  try {
    if (!(await isRealDir(dir))) return null;
    await walk('');
  } catch {
    return null;
  }
  return hash.digest('hex');
}

/**
 * Startup: copies the shipped catalog over `<catalogDir>/builtin` (temp copy, rename) when the
 * content differs. Returns whether it copied.
 */
export async function syncBuiltinCatalog(catalogDir: string, shipped = SHIPPED_CATALOG): Promise<boolean> {
  const target = path.join(catalogDir, 'builtin');
  const [want, have] = await Promise.all([treeDigest(shipped), treeDigest(target)]);
  if (want !== null && want === have) return false;
  await fs.mkdir(catalogDir, { recursive: true, mode: 0o755 });
  const tag = randomBytes(6).toString('hex');
  const tmp = path.join(catalogDir, `.builtin.tmp-${tag}`);
  const old = path.join(catalogDir, `.builtin.old-${tag}`);
  await fs.cp(shipped, tmp, { recursive: true, dereference: false });
  const st = await fs.lstat(target).catch(() => null);
  if (st) await fs.rename(target, old);
  await fs.rename(tmp, target);
  if (st) await fs.rm(old, { recursive: true, force: true });
  return true;
}
