import { describe, expect, it } from 'vitest';
import { partKey, partLabel, partOfTags, partsOf, rootsOfTags, snapshotTags } from './parts.ts';

describe('parts and snapshot tags', () => {
  it('a plan backs up the configuration, then its stacks, then its shares', () => {
    expect(
      partsOf({
        configuration: true,
        stacks: [{ name: 'web', keepRunning: true }],
        shares: ['media', 'docs'],
      }).map(partKey),
    ).toEqual(['config', 'stack:web', 'share:media', 'share:docs']);
    expect(partLabel({ kind: 'share', name: 'media' })).toBe('share media');
    expect(partLabel({ kind: 'config' })).toBe('the configuration');
  });
  it('tags name the plan and the part; app-data folders round-trip through path: tags, commas included', () => {
    const tags = snapshotTags('nightly', { kind: 'stack', name: 'web' }, [
      '/mnt/cache/appdata/web',
      '/mnt/cache/a,b%c',
    ]);
    expect(tags).toEqual([
      'appliance',
      'plan:nightly',
      'stack:web',
      'path:/mnt/cache/appdata/web',
      'path:/mnt/cache/a%2Cb%25c',
    ]);
    expect(tags.some((t) => t.includes(','))).toBe(false);
    expect(partOfTags(tags)).toEqual({ kind: 'stack', name: 'web' });
    expect(rootsOfTags(tags)).toEqual(['/mnt/cache/appdata/web', '/mnt/cache/a,b%c']);
    expect(partOfTags(['appliance', 'plan:x', 'config'])).toEqual({ kind: 'config' });
    expect(partOfTags(['something-else'])).toBeNull();
    expect(partOfTags(null)).toBeNull();
  });
});
