/**
 * The app-data folders of a stack (pure): the host folders its services bind-mount, as the compose
 * tool's `config` resolves them, that lie strictly below the app-data root. Only these are ever
 * removed with a stack's data; a bind of a share, of the root itself or outside it never is.
 */

/** Host sources of bind mounts in a compose model (short `src:dst[:mode]` or long `type: bind`). */
export function bindSources(model: unknown): string[] {
  const out: string[] = [];
  const services = (model as { services?: Record<string, unknown> } | null)?.services;
  if (!services || typeof services !== 'object') return out;
  for (const svc of Object.values(services)) {
    const volumes = (svc as { volumes?: unknown } | null)?.volumes;
    if (!Array.isArray(volumes)) continue;
    for (const v of volumes) {
      if (typeof v === 'string') {
        const source = v.split(':')[0] ?? '';
        if (source.startsWith('/')) out.push(source);
      } else if (v && typeof v === 'object') {
        const long = v as { type?: unknown; source?: unknown };
        if (long.type === 'bind' && typeof long.source === 'string' && long.source.startsWith('/'))
          out.push(long.source);
      }
    }
  }
  return out;
}

const normalize = (p: string): string => {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
};

/** Folders among `sources` strictly below `root` (logical paths), outermost only, sorted. */
export function dataFolders(sources: readonly string[], root: string): string[] {
  const base = normalize(root);
  const below = [...new Set(sources.map(normalize))].filter((p) => p.startsWith(`${base}/`));
  below.sort();
  const out: string[] = [];
  for (const p of below) if (!out.some((o) => p.startsWith(`${o}/`))) out.push(p);
  return out;
}
