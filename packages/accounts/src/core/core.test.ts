import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { lowerRole, roleAtLeast } from './roles.ts';
import { checkSessionWrite, sessionSecret, type SessionWrite } from './session-http.ts';
import { generateToken, sameDigest, TOKEN_PATTERN, tokenHash } from './tokens.ts';

describe('roles', () => {
  it('ranks share-only < viewer < admin', () => {
    expect(roleAtLeast('admin', 'viewer')).toBe(true);
    expect(roleAtLeast('viewer', 'admin')).toBe(false);
    expect(roleAtLeast('share-only', 'viewer')).toBe(false);
    expect(lowerRole('admin', 'viewer')).toBe('viewer');
    expect(lowerRole('viewer', 'share-only')).toBe('share-only');
  });
});

describe('tokens', () => {
  it('apat_ + 64 hex; the hash is SHA-256 hex; digests compare in constant time', () => {
    const raw = generateToken((n) => Buffer.alloc(n, 0xab));
    expect(raw).toBe(`apat_${'ab'.repeat(32)}`);
    expect(TOKEN_PATTERN.test(raw)).toBe(true);
    expect(tokenHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sameDigest(tokenHash('a'), tokenHash('a'))).toBe(true);
    expect(sameDigest(tokenHash('a'), tokenHash('b'))).toBe(false);
    expect(sameDigest('ab', 'abab')).toBe(false);
  });
});

describe('the session cookie and cookie writes', () => {
  it('finds the session secret among other cookies', () => {
    expect(sessionSecret(undefined)).toBeNull();
    expect(sessionSecret('a=1; appliance_session= abc ; b=2')).toBe('abc');
    expect(sessionSecret('appliance_sessionx=1; junk')).toBeNull();
  });

  it('a cookie write needs the UI header and a same-origin Sec-Fetch-Site or Origin', () => {
    const req = (over: Partial<SessionWrite>): SessionWrite => ({
      method: 'POST',
      uiHeader: '1',
      secFetchSite: 'same-origin',
      origin: undefined,
      ownOrigin: () => 'https://nas.local',
      ...over,
    });
    const refused = (r: SessionWrite) => {
      try {
        checkSessionWrite(r);
        return false;
      } catch (e) {
        return e instanceof Refusal && e.code === 'cross_site_refused';
      }
    };
    expect(refused(req({}))).toBe(false);
    expect(refused(req({ method: 'GET', uiHeader: undefined, secFetchSite: 'cross-site' }))).toBe(false);
    expect(refused(req({ uiHeader: undefined }))).toBe(true);
    expect(refused(req({ secFetchSite: 'cross-site' }))).toBe(true);
    expect(refused(req({ secFetchSite: undefined, origin: 'https://nas.local' }))).toBe(false);
    expect(refused(req({ secFetchSite: undefined, origin: 'https://evil.example' }))).toBe(true);
    expect(refused(req({ secFetchSite: undefined }))).toBe(true);
  });
});
