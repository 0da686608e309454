/** Fills `{param}` placeholders (encoded) and appends the query string. */
export function resolvePath(
  template: string,
  params: Record<string, string> | undefined,
  query: Record<string, unknown> | undefined,
): string {
  const filled = template.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [k, val] of Object.entries(query ?? {}))
    if (val !== undefined && val !== null) search.set(k, String(val));
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}
