import { describe, expect, it } from 'vitest';
import type { AccessSnapshot } from './effective-access.ts';
import { renderSmbConf } from './render-smb-conf.ts';
import { accessGranted, accessRevocations, parseShareSections } from './revocations.ts';

const on = { enabled: true, browseable: true };
const users = [
  { id: 'a', username: 'Alice' },
  { id: 'b', username: 'bob' },
  { id: 'c', username: 'carol' },
];
type Grants = Array<[share: string, user: string, access: 'none' | 'read-only' | 'read-write']>;
const conf = (grants: Grants, shares = ['media', 'photos', 'docs']): string =>
  renderSmbConf({
    shares: shares.map((name) => ({ name, smb: on })),
    users,
    groups: [{ id: 'family', memberUserIds: ['b'] }],
    userGrants: grants.map(([shareName, userId, access]) => ({ shareName, userId, access })),
    groupGrants: [],
  } satisfies AccessSnapshot);

const base: Grants = [
  ['media', 'a', 'read-write'],
  ['media', 'b', 'read-only'],
  ['docs', 'c', 'read-only'],
];

describe('parseShareSections', () => {
  it('reads the open state and the readers of each generated section', () => {
    expect(Object.fromEntries(parseShareSections(conf(base)))).toEqual({
      docs: { open: true, readers: ['carol'], writers: [] },
      media: { open: true, readers: ['alice', 'bob'], writers: ['alice'] },
      photos: { open: false, readers: [], writers: [] },
    });
  });
});

describe('accessRevocations (issue 24: open connections)', () => {
  it('closes nothing when nobody lost access', () => {
    expect(accessRevocations(conf(base), conf(base))).toEqual({ closeShare: [], closeDenied: [] });
    // more access, or read-write → read-only: Samba keeps open connections as they are
    const wider: Grants = [
      ['media', 'a', 'read-only'],
      ['media', 'b', 'read-only'],
      ['media', 'c', 'read-only'],
      ['docs', 'c', 'read-only'],
      ['photos', 'a', 'read-only'],
    ];
    expect(accessRevocations(conf(base), conf(wider))).toEqual({ closeShare: [], closeDenied: [] });
  });

  it('asks for close-denied-share where a reader was dropped', () => {
    const noAlice: Grants = [
      ['media', 'b', 'read-only'],
      ['docs', 'c', 'read-only'],
    ];
    expect(accessRevocations(conf(base), conf(noAlice))).toEqual({ closeShare: [], closeDenied: ['media'] });
    const aliceNone: Grants = [
      ['media', 'a', 'none'],
      ['media', 'b', 'read-only'],
      ['docs', 'c', 'read-only'],
    ];
    expect(accessRevocations(conf(base), conf(aliceNone))).toEqual({
      closeShare: [],
      closeDenied: ['media'],
    });
  });

  it('asks for close-share where a share closed, lost its section or was deleted', () => {
    const docsClosed: Grants = [
      ['media', 'a', 'read-write'],
      ['media', 'b', 'read-only'],
    ];
    expect(accessRevocations(conf(base), conf(docsClosed))).toEqual({
      closeShare: ['docs'],
      closeDenied: [],
    });
    expect(accessRevocations(conf(base), conf(base, ['docs', 'photos']))).toEqual({
      closeShare: ['media'],
      closeDenied: [],
    });
  });

  it('without the previous file: close-denied-share on every open share, close-share on closed ones', () => {
    expect(accessRevocations(null, conf(base))).toEqual({
      closeShare: ['photos'],
      closeDenied: ['docs', 'media'],
    });
  });
});

describe('accessGranted (issue 32: a grant must be loaded before the request answers)', () => {
  it('a closed share opened, a new share, a new reader or a new writer is a grant', () => {
    expect(accessGranted(conf(base), conf([...base, ['photos', 'c', 'read-only']]))).toBe(true);
    expect(accessGranted(conf(base, ['media', 'docs']), conf(base))).toBe(false); // photos is closed
    expect(accessGranted(conf(base, ['media', 'docs']), conf([...base, ['photos', 'a', 'read-only']]))).toBe(
      true,
    );
    expect(accessGranted(conf(base), conf([...base, ['media', 'c', 'read-only']]))).toBe(true);
    const bobWrites: Grants = [
      ['media', 'a', 'read-write'],
      ['media', 'b', 'read-write'],
      ['docs', 'c', 'read-only'],
    ];
    expect(accessGranted(conf(base), conf(bobWrites))).toBe(true);
  });

  it('the same access, or access taken away only, is no grant', () => {
    expect(accessGranted(conf(base), conf(base))).toBe(false);
    expect(accessGranted(conf(base), conf([['media', 'a', 'read-write']]))).toBe(false);
    expect(
      accessGranted(
        conf(base),
        conf([
          ['media', 'a', 'read-only'],
          ['media', 'b', 'read-only'],
        ]),
      ),
    ).toBe(false);
    expect(accessGranted(conf(base), conf([]))).toBe(false);
  });

  it('with nothing known of what smbd loaded, any open share counts as granted', () => {
    expect(accessGranted(null, conf(base))).toBe(true);
    expect(accessGranted(null, conf([]))).toBe(false);
  });
});
