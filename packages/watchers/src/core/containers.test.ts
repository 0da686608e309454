import { describe, expect, it } from 'vitest';
import { digestsFor, evaluateContainers, evaluateImages, parseImageReference } from './containers.ts';

describe('evaluateContainers', () => {
  it('an unhealthy container: which one, which stack and service, what its last check said', () => {
    const o = evaluateContainers([
      {
        name: 'web_app_1',
        stack: 'web',
        service: 'app',
        health: 'unhealthy',
        failingStreak: 3,
        lastOutput: 'curl: (7) Failed\n to connect\n',
      },
      { name: 'web_db_1', stack: 'web', service: 'db', health: 'healthy' },
      { name: 'web_cron_1', stack: 'web', service: 'cron', health: null },
    ]);
    expect(o.conditions).toHaveLength(1);
    expect(o.conditions[0]).toMatchObject({
      key: 'container:web/app',
      eventType: 'container_unhealthy',
      subject: 'container web_app_1 (stack web, service app)',
      title: 'Stack web: container web_app_1 is unhealthy',
    });
    expect(o.conditions[0]!.message).toContain(
      'failed 3 times in a row; the last check said: "curl: (7) Failed to connect"',
    );
    expect(o.conditions[0]!.message).toContain('docker logs web_app_1');
    expect(o.unobserved).toEqual([]);
  });
  it('a container whose health check has not answered yet (restarted) is unobserved: its condition is kept', () => {
    const o = evaluateContainers([
      { name: 'web_app_1', stack: 'web', service: 'app', health: 'starting' },
      { name: 'web_db_1', stack: 'web', service: 'db', health: 'healthy' },
    ]);
    expect(o.conditions).toEqual([]);
    expect(o.unobserved).toEqual(['container:web/app']);
  });
});

describe('evaluateImages', () => {
  const image = {
    stack: 'web',
    service: 'app',
    container: 'web_app_1',
    reference: '127.0.0.1:5000/lab/app:latest',
    runningDigests: ['sha256:aaaaaaaaaaaa1111'],
  };
  it('the registry has the running digest: nothing; another one: an update, with both digests and what to do', () => {
    expect(evaluateImages([{ ...image, registryDigest: 'sha256:aaaaaaaaaaaa1111' }]).conditions).toEqual([]);
    const [c] = evaluateImages([{ ...image, registryDigest: 'sha256:bbbbbbbbbbbb2222' }]).conditions;
    expect(c).toMatchObject({
      key: 'image:web/app',
      eventType: 'container_update_available',
      value: 'sha256:bbbbbbbbbbbb',
    });
    expect(c!.message).toContain(
      'the registry has 127.0.0.1:5000/lab/app:latest as sha256:bbbbbbbbbbbb, the container runs sha256:aaaaaaaaaaaa',
    );
  });
  it('no registry digest (a local image, a registry that did not answer): unobserved, with a note', () => {
    const o = evaluateImages([{ ...image, registryDigest: null, why: 'the image was built locally' }]);
    expect(o.conditions).toEqual([]);
    expect(o.unobserved).toEqual(['image:web/app']);
    expect(o.notes![0]!.message).toBe('not checked: the image was built locally');
  });
});

describe('image references', () => {
  it('makes the implicit registry, repository and tag explicit', () => {
    expect(parseImageReference('busybox')).toEqual({
      repository: 'docker.io/library/busybox',
      tag: 'latest',
      digest: null,
    });
    expect(parseImageReference('linuxserver/jellyfin:10.9')).toEqual({
      repository: 'docker.io/linuxserver/jellyfin',
      tag: '10.9',
      digest: null,
    });
    expect(parseImageReference('127.0.0.1:5000/lab/app')).toEqual({
      repository: '127.0.0.1:5000/lab/app',
      tag: 'latest',
      digest: null,
    });
    expect(parseImageReference('ghcr.io/a/b@sha256:abc')).toEqual({
      repository: 'ghcr.io/a/b',
      tag: null,
      digest: 'sha256:abc',
    });
  });
  it('picks the RepoDigests of the reference’s repository', () => {
    expect(
      digestsFor('busybox:1.37', [
        'busybox@sha256:1',
        'docker.io/library/busybox@sha256:2',
        'other/busybox@sha256:3',
      ]),
    ).toEqual(['sha256:1', 'sha256:2']);
  });
});
