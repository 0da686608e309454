/**
 * Debian version comparison (deb-version(7), the algorithm of dpkg's `verrevcmp`): epoch, then
 * upstream version, then revision; letters sort before non-letters and `~` before everything, even
 * the end of the string. Used for kernel releases (`6.1.0-18-amd64` against `6.1.0-9-amd64`).
 */

function order(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/[0-9]/.test(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function compareFragment(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !/[0-9]/.test(a[i]!)) || (j < b.length && !/[0-9]/.test(b[j]!))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && /[0-9]/.test(a[i]!) && j < b.length && /[0-9]/.test(b[j]!)) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && /[0-9]/.test(a[i]!)) return 1;
    if (j < b.length && /[0-9]/.test(b[j]!)) return -1;
    if (firstDiff !== 0) return firstDiff;
  }
  return 0;
}

function split(v: string): { epoch: number; upstream: string; revision: string } {
  const colon = v.indexOf(':');
  const epoch = colon > 0 ? Number.parseInt(v.slice(0, colon), 10) || 0 : 0;
  const rest = colon > 0 ? v.slice(colon + 1) : v;
  const dash = rest.lastIndexOf('-');
  return dash > 0
    ? { epoch, upstream: rest.slice(0, dash), revision: rest.slice(dash + 1) }
    : { epoch, upstream: rest, revision: '' };
}

/** Negative when `a` is older than `b`, 0 when equal, positive when newer. */
export function compareDebianVersions(a: string, b: string): number {
  const x = split(a);
  const y = split(b);
  if (x.epoch !== y.epoch) return x.epoch - y.epoch;
  return compareFragment(x.upstream, y.upstream) || compareFragment(x.revision, y.revision);
}
