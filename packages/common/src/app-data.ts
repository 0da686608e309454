/**
 * The app data of a compose stack (pure): the host folders its services bind-mount (short
 * `src:dst[:mode]` or long `type: bind` syntax, as the compose tool's `config` resolves them) that
 * lie strictly below the app-data root (`/mnt/cache`). Named volumes live in Docker's own data root
 * and are not app data; binds of shares, of the root itself or outside it never are. Nested folders
 * collapse into the outermost one. Backups back these folders up (@appliance/backups) and a stack
 * removed with its data removes only these (@appliance/template-installer).
 */

/** Host sources of bind mounts in a compose model (`docker-compose config`, YAML or JSON parsed). */
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

/** The app-data folders among `sources`: strictly below `root`, outermost only, sorted. */
export function appDataFolders(sources: readonly string[], root: string): string[] {
  const base = normalize(root);
  const below = [...new Set(sources.map(normalize))].filter((p) => p.startsWith(`${base}/`));
  below.sort();
  const out: string[] = [];
  for (const p of below) if (!out.some((o) => p === o || p.startsWith(`${o}/`))) out.push(p);
  return out;
}
