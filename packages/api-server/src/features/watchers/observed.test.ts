/**
 * GET /notifications/event-types says which events this installation can raise: `observed` comes
 * from the features' `raises` declarations, not from a list in one place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFeatures } from '../index.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

describe('observed event types', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox();
  });
  afterAll(async () => {
    await s?.close();
  });

  const observed = async () => {
    const r = await s.call('GET', '/notifications/event-types');
    expect(r.status).toBe(200);
    return Object.fromEntries(
      r.body.eventTypes.map((e: { eventType: string; observed: boolean }) => [e.eventType, e.observed]),
    );
  };

  it('the watchers’ events and login_failure_burst are observed; events of features not built yet are not', async () => {
    const o = await observed();
    expect(Object.keys(o)).toHaveLength(29);
    for (const t of [
      'smart_warning',
      'smart_failure',
      'disk_offline',
      'array_degraded',
      'pool_above_threshold',
      'disk_near_minfreespace',
      'cache_above_threshold',
      'config_drift_detected',
      'container_unhealthy',
      'container_update_available',
      'login_failure_burst',
      'credential_reset',
      'catalog_check_failed',
      'sync_succeeded',
      'sync_failed',
      'sync_blocked_threshold',
      'scrub_errors_found',
      'config_backup_failed',
      'appdata_backup_failed',
      'backup_destination_stale',
      'restore_drill_failed',
      'reboot_required',
    ])
      expect(o[t], t).toBe(true);
    // the update events need apt configured for this box: a sandbox never checks this machine's
    // packages unless given an apt configuration of its own (features/updates/updates.system.test.ts);
    // certificate_renewal_failed needs [acme] (features/certificates/acme.system.test.ts)
    for (const t of [
      'mover_skipping_files',
      'appliance_update_available',
      'appliance_update_failed',
      'certificate_renewal_failed',
    ])
      expect(o[t], t).toBe(false);
  });

  it('every observed event is declared by the feature that raises it', () => {
    const declared = allFeatures({} as never, {} as never, '0').flatMap((f) =>
      (f.raises ?? []).map((r) => `${f.name}:${typeof r === 'string' ? r : r.eventType}`),
    );
    expect(declared).toEqual(
      expect.arrayContaining([
        'tokens:login_failure_burst',
        'parity:sync_blocked_threshold',
        'mover:mover_skipping_files',
        'setup:credential_reset',
        'apps:catalog_check_failed',
        'backups:backup_destination_stale',
        'watchers:disk_offline',
        'watchers:certificate_expiring',
        'updates:reboot_required',
        'updates:appliance_update_available',
        'updates:appliance_update_failed',
        'certificates:certificate_renewal_failed',
      ]),
    );
  });
});
