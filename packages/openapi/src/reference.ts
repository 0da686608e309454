/** A self-contained, browsable reference page of an OpenAPI document (no external scripts: it works offline). */
import type { Json } from './json-schema.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export interface ReferenceOptions {
  /** The page's `<title>`. */
  title: string;
  /** Its heading. */
  heading: string;
  /** Where the machine-readable document is served. */
  documentUrl: string;
}

export function renderReference(doc: Json, options: ReferenceOptions): string {
  const paths = doc['paths'] as Record<string, Record<string, Json>>;
  const rows: string[] = [];
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const body = (op['requestBody'] as Json | undefined)?.['content'];
      const responses = op['responses'] as Record<string, Json>;
      rows.push(`<details id="${esc(String(op['operationId']))}"><summary><code class="m ${method}">${method.toUpperCase()}</code> <code>${esc(path)}</code> — ${esc(String(op['summary']))} <small>role: ${esc(String(op['x-role']))}</small></summary>
${op['parameters'] ? `<h4>Parameters</h4><pre>${esc(JSON.stringify(op['parameters'], null, 2))}</pre>` : ''}
${body ? `<h4>Request body</h4><pre>${esc(JSON.stringify(body, null, 2))}</pre>` : ''}
<h4>Responses</h4>${Object.entries(responses)
        .map(
          ([s, r]) =>
            `<p><b>${s}</b> ${esc(String(r['description']))}</p>${r['content'] && s < '300' ? `<pre>${esc(JSON.stringify(r['content'], null, 2))}</pre>` : ''}`,
        )
        .join('\n')}
</details>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(options.title)}</title>
<style>body{font:14px system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}details{border-bottom:1px solid #ddd;padding:.4rem 0}
summary{cursor:pointer}pre{background:#f6f6f6;padding:.5rem;overflow:auto;font-size:12px}.m{display:inline-block;width:4.5rem;font-weight:bold}
.get{color:#06c}.post{color:#080}.put,.patch{color:#a60}.delete{color:#c00}small{color:#777}</style></head>
<body><h1>${esc(options.heading)}</h1><p>Generated from the request schemas. Machine-readable: <a href="${esc(options.documentUrl)}">${esc(options.documentUrl.split('/').at(-1) ?? '')}</a>.</p>
${rows.join('\n')}</body></html>`;
}
