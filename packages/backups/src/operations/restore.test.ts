import { describe, expect, it } from 'vitest';
import { DEFAULT_DRILL, DEFAULT_RETENTION } from '../core/plan.ts';
import { memoryPlanAdminPorts } from '../test-support/plan-admin.ts';
import { restorePart, startRestore } from './restore.ts';
import { configArchiveName } from './snapshots.ts';

function withPlan() {
  const ports = memoryPlanAdminPorts({ now: '2026-03-02T10:00:00.000Z' });
  ports.attached.add('usb1');
  ports.stored.set('nightly', {
    name: 'nightly',
    enabled: true,
    destination: 'usb1',
    configuration: false,
    stacks: [],
    shares: ['media'],
    schedule: { kind: 'daily', time: '03:30' },
    retention: DEFAULT_RETENTION,
    drill: DEFAULT_DRILL,
    createdAt: '2026-03-01T00:00:00.000Z',
    updatedAt: '2026-03-01T00:00:00.000Z',
    sealedPassword: Buffer.from('sealed'),
  });
  return ports;
}

const base = { plan: 'nightly', snapshot: 'abcdef12', paths: [] as string[] };

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'started',
    (e: { code: string }) => e.code,
  );

describe('restorePart', () => {
  it('takes exactly one of share or stack', () => {
    expect(restorePart({ share: 'media' })).toEqual({ kind: 'share', name: 'media' });
    expect(restorePart({ stack: 'photos' })).toEqual({ kind: 'stack', name: 'photos' });
    for (const bad of [{}, { share: 'media', stack: 'photos' }])
      expect(() => restorePart(bad)).toThrow(
        expect.objectContaining({
          code: 'bad_request',
          details: { issues: [{ path: 'share', message: 'give exactly one of share or stack' }] },
        }),
      );
  });
});

describe('startRestore', () => {
  it('into its place needs the typed confirmation, then starts the job on the share', async () => {
    const ports = withPlan();
    await expect(
      startRestore(ports, { ...base, share: 'media', confirmation: 'RESTORE media' }),
    ).rejects.toMatchObject({
      code: 'confirmation_required',
      details: { expected: 'RESTORE share media' },
    });
    expect(ports.started).toEqual([]);
    const view = await startRestore(ports, { ...base, share: 'media', confirmation: 'RESTORE share media' });
    expect(view.type).toBe('backup.restore');
    expect(ports.started).toEqual([
      {
        type: 'backup.restore',
        params: {
          plan: 'nightly',
          destination: 'usb1',
          snapshot: 'abcdef12',
          part: { kind: 'share', name: 'media' },
          paths: [],
          folder: null,
        },
        target: 'share:media',
        auditOperation: 'backups.restore',
      },
    ]);
  });

  it('into a new folder needs no confirmation; the folder and the paths are checked first', async () => {
    const ports = withPlan();
    expect(await codeOf(startRestore(ports, { ...base, stack: 'photos', folder: '/etc/x' }))).toBe(
      'bad_request',
    );
    expect(
      await codeOf(
        startRestore(ports, { ...base, stack: 'photos', paths: ['../x'], folder: '/mnt/cache/x' }),
      ),
    ).toBe('bad_request');
    // the request's own faults come before the plan is looked up
    expect(
      await codeOf(startRestore(ports, { ...base, plan: 'none', stack: 'photos', folder: '/etc/x' })),
    ).toBe('bad_request');
    expect(
      await codeOf(startRestore(ports, { ...base, plan: 'none', stack: 'photos', folder: '/mnt/cache/x' })),
    ).toBe('backup_plan_not_found');
    expect(ports.started).toEqual([]);
    await startRestore(ports, { ...base, stack: 'photos', paths: ['db'], folder: '/mnt/cache/restored' });
    expect(ports.started[0]).toMatchObject({
      target: 'stack:photos',
      params: { part: { kind: 'stack', name: 'photos' }, paths: ['db'], folder: '/mnt/cache/restored' },
    });
  });

  it('refuses a plan without its password, then a detached disk, before starting anything', async () => {
    const ports = withPlan();
    ports.attached.clear();
    const req = { ...base, share: 'media', folder: '/mnt/user/media/restored' };
    expect(await codeOf(startRestore(ports, req))).toBe('backup_destination_missing');
    ports.stored.get('nightly')!.sealedPassword = null;
    expect(await codeOf(startRestore(ports, req))).toBe('repository_password_missing');
    expect(ports.started).toEqual([]);
  });
});

describe('configArchiveName', () => {
  it('stamps the snapshot time to the second, in UTC', () => {
    expect(configArchiveName('nightly', '2026-03-02T03:30:05.123Z')).toBe(
      'appliance-config-nightly-20260302T033005Z.tar.zst',
    );
    expect(configArchiveName('nightly', '2026-03-02T03:30:05Z')).toBe(
      'appliance-config-nightly-20260302T033005Z.tar.zst',
    );
  });
});
