/**
 * The URL of a request Node parsed: its scheme (the socket is TLS or not), its Host header and its
 * target. A plain origin-form target on a plain host is joined as it is (the hot path); anything
 * else goes through the WHATWG URL parser, as a client's `new Request()` would, and a target or a
 * Host the parser would read differently from what the client meant is refused (`BadTarget`, 400):
 * a backslash in the path, a Host holding a path, credentials or a fragment, an asterisk target.
 */
import type { IncomingMessage } from 'node:http';

export class BadTarget extends Error {
  override name = 'BadTarget';
}

/** Unreserved and sub-delims of RFC 3986, ':' '@' '/' '?' and '.': the parser leaves them as sent. */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?]*$/;
/** A host name or IPv4 address in lower case, and a port; the port is checked below. */
const PLAIN_HOST = /^[a-z0-9.-]+(?::([1-9]\d{0,4}))?$/;
const HOST_BREAKERS = /[/\\?#@\s]/;

export function requestUrl(incoming: IncomingMessage): string {
  const target = incoming.url ?? '';
  if (target.startsWith('http://') || target.startsWith('https://')) return absoluteForm(target);
  const host = incoming.headers.host;
  if (!host) throw new BadTarget('The request has no Host header; send one (HTTP/1.1 requires it).');
  const scheme = (incoming.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
  if (target === '') return `${scheme}://${host}/`;
  if (target.charCodeAt(0) !== 47)
    throw new BadTarget('The request target must be a path that starts with "/".');
  const plainHost = PLAIN_HOST.exec(host);
  if (
    plainHost &&
    (plainHost[1] === undefined || Number(plainHost[1]) <= 65535) &&
    PLAIN_TARGET.test(target) &&
    !target.includes('/.')
  )
    return `${scheme}://${host}${target}`;
  if (HOST_BREAKERS.test(host)) throw new BadTarget('The Host header is not a host name; send host[:port].');
  refuseBackslash(target);
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}${target}`);
  } catch {
    throw new BadTarget('The request target or the Host header cannot form a URL; check both.');
  }
  return url.href;
}

function absoluteForm(target: string): string {
  refuseBackslash(target);
  try {
    return new URL(target).href;
  } catch {
    throw new BadTarget('The absolute request target is not a valid http(s) URL.');
  }
}

/** A backslash in the path is read as "/" by the URL parser: the client and the router would disagree. */
function refuseBackslash(target: string): void {
  const slash = target.indexOf('\\');
  if (slash === -1) return;
  const query = target.indexOf('?');
  if (query === -1 || slash < query)
    throw new BadTarget('The request path holds a backslash; send "/" between segments (or %5C inside one).');
}
