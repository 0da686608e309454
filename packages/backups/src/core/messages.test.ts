import { describe, expect, it } from 'vitest';
import { appdataBackupFailed, configBackupFailed, drillFailed } from './messages.ts';

describe('backup event texts', () => {
  const sentence =
    'The backup disk "bk" stopped answering (unplugged, powered off or failed): re-attach it, then run the job again.';

  it('a reason that is a whole sentence is set in without its closing period (no "..")', () => {
    const appdata = appdataBackupFailed({
      plan: 'nightly',
      failures: [
        { part: { kind: 'share', name: 'media' }, reason: sentence },
        { part: { kind: 'stack', name: 'web' }, reason: 'restic said: no space left on device' },
      ],
      scheduled: true,
    });
    expect(appdata.message).toBe(
      'The scheduled backup (plan nightly) failed for share media: The backup disk "bk" stopped answering (unplugged, powered off or failed): re-attach it, then run the job again; stack web: restic said: no space left on device. The previous snapshots are untouched; fix the cause, then run it again (appliance backups run nightly).',
    );
    for (const e of [
      appdata,
      configBackupFailed({ plan: 'nightly', reason: `${sentence}  `, scheduled: false }),
      drillFailed({ plan: 'nightly', reason: sentence, scheduled: false }),
    ])
      expect(e.message).not.toMatch(/\.\./);
  });
});
