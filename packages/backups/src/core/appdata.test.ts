import { describe, expect, it } from 'vitest';
import { appDataRoots, bindSources } from './appdata.ts';

describe('app data of a stack', () => {
  it('finds bind sources in short and long syntax, not named volumes', () => {
    const model = {
      services: {
        web: {
          volumes: [
            '/mnt/cache/appdata/web:/config:rw',
            '/mnt/user/media:/media:ro',
            { type: 'bind', source: '/mnt/cache/appdata/web-cache', target: '/cache' },
            { type: 'volume', source: 'named', target: '/data' },
            'named:/data:rw',
          ],
        },
        db: { volumes: ['/mnt/cache/appdata/web/db:/var/lib/db'] },
        plain: { image: 'x' },
      },
    };
    expect(bindSources(model)).toEqual([
      '/mnt/cache/appdata/web',
      '/mnt/user/media',
      '/mnt/cache/appdata/web-cache',
      '/mnt/cache/appdata/web/db',
    ]);
    expect(bindSources(null)).toEqual([]);
  });
  it('keeps the folders strictly below the appdata location, outermost only', () => {
    expect(
      appDataRoots(
        [
          '/mnt/cache/appdata/web',
          '/mnt/user/media',
          '/mnt/cache/appdata/web-cache/',
          '/mnt/cache/appdata/web/db',
          '/mnt/cache',
          '/mnt/cachefoo/x',
        ],
        '/mnt/cache',
      ),
    ).toEqual(['/mnt/cache/appdata/web', '/mnt/cache/appdata/web-cache']);
    expect(appDataRoots(['/sbx/mnt/cache/appdata/a/../b'], '/sbx/mnt/cache')).toEqual([
      '/sbx/mnt/cache/appdata/b',
    ]);
  });
});
