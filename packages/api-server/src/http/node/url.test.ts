import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BadTarget, requestUrl } from './url.ts';

const incoming = (url: string, host: string | undefined, encrypted = false) =>
  ({ url, headers: host === undefined ? {} : { host }, socket: { encrypted } }) as unknown as IncomingMessage;

describe('requestUrl', () => {
  it('joins a plain target and host as they are, https on a TLS socket', () => {
    expect(requestUrl(incoming('/api/v1/users?limit=5', 'localhost:8080'))).toBe(
      'http://localhost:8080/api/v1/users?limit=5',
    );
    expect(requestUrl(incoming('/a', '10.0.0.2', true))).toBe('https://10.0.0.2/a');
    expect(requestUrl(incoming('', 'box'))).toBe('http://box/');
    expect(requestUrl(incoming('/x', '127.0.0.1:65535'))).toBe('http://127.0.0.1:65535/x');
  });

  it('reads anything else as the URL parser does: dot segments resolved, escapes kept, host lower-cased', () => {
    expect(requestUrl(incoming('/api/v1/shares/./x/../permissions', 'h'))).toBe(
      'http://h/api/v1/shares/permissions',
    );
    expect(requestUrl(incoming('/a/%2e%2E/b', 'h'))).toBe('http://h/b');
    expect(requestUrl(incoming('/a b/ü?q="x"', 'h'))).toBe('http://h/a%20b/%C3%BC?q=%22x%22');
    expect(requestUrl(incoming('/x', 'Appliance.LOCAL:8443'))).toBe('http://appliance.local:8443/x');
    expect(requestUrl(incoming('/x', '[::1]:8080'))).toBe('http://[::1]:8080/x');
    expect(requestUrl(incoming('/x?a\\b', 'h'))).toBe('http://h/x?a\\b');
  });

  it('takes an absolute-form target as it names itself', () => {
    expect(requestUrl(incoming('http://other:9/a/../b', 'h'))).toBe('http://other:9/b');
  });

  it.each([
    ['/x', undefined, 'no Host header'],
    ['*', 'h', 'starts with "/"'],
    ['x/y', 'h', 'starts with "/"'],
    ['/a\\..\\admin', 'h', 'backslash'],
    ['/x', 'h/evil', 'not a host name'],
    ['/x', 'user@h', 'not a host name'],
    ['/x', 'h:99999', 'cannot form a URL'],
    ['/x', 'h:65536', 'cannot form a URL'],
    ['http://h/a\\b', 'h', 'backslash'],
    ['http://[bad/x', 'h', 'not a valid http(s) URL'],
  ])('refuses target %j with Host %j (%s)', (target, host, says) => {
    const read = () => requestUrl(incoming(target, host));
    expect(read).toThrow(BadTarget);
    expect(read).toThrow(says);
  });
});
