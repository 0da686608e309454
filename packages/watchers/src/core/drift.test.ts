import { describe, expect, it } from 'vitest';
import { diffSummary, driftAdvice, evaluateDrift, type GeneratedFileFacts } from './drift.ts';

const smb = '[global]\n  server string = nas\n[media]\n  path = /mnt/user/media\n  read only = yes\n';
const file = (
  current: GeneratedFileFacts['current'],
  path = '/etc/appliance/samba/smb.conf',
): GeneratedFileFacts => ({
  path,
  recorded: { sha256: 'aaa', content: smb, writtenAt: '2026-11-25T10:00:00.000Z' },
  current,
});

describe('diffSummary', () => {
  it('counts and shows the changed lines with their numbers', () => {
    const d = diffSummary(smb, smb.replace('read only = yes', 'read only = no\n  guest ok = yes'));
    expect(d).toEqual({
      added: 2,
      removed: 1,
      lines: ['- 5:   read only = yes', '+ 5:   read only = no', '+ 6:   guest ok = yes'],
    });
  });

  it('shows at most six lines, and cuts long ones', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = Array.from({ length: 20 }, (_, i) => `LINE ${i} ${'x'.repeat(200)}`).join('\n');
    const d = diffSummary(before, after);
    expect([d.added, d.removed, d.lines.length]).toEqual([20, 20, 6]);
    expect(d.lines.every((l) => l.length <= 130)).toBe(true);
  });

  it('an unchanged text has no difference', () => {
    expect(diffSummary(smb, smb)).toEqual({ added: 0, removed: 0, lines: [] });
  });
});

describe('evaluateDrift', () => {
  it('a file as recorded holds nothing', () => {
    expect(evaluateDrift([file({ sha256: 'aaa', content: smb })]).conditions).toEqual([]);
  });

  it('an edited smb.conf: which file, the diff summary, and that the service will overwrite it', () => {
    const [c] = evaluateDrift([
      file({ sha256: 'b'.repeat(64), content: smb.replace('yes', 'no') }),
    ]).conditions;
    expect(c).toMatchObject({
      key: 'drift:/etc/appliance/samba/smb.conf',
      eventType: 'config_drift_detected',
      subject: '/etc/appliance/samba/smb.conf',
      value: 'sha256 bbbbbbbbbbbb',
      title: 'Generated file smb.conf changed outside the service',
    });
    expect(c!.message).toBe(
      `/etc/appliance/samba/smb.conf was changed outside the service: 1 line added, 1 line removed since the service wrote it on 2026-11-25T10:00:00.000Z:\n- 5:   read only = yes\n+ 5:   read only = no\n ${driftAdvice('/etc/appliance/samba/smb.conf')}`,
    );
    expect(c!.message).toContain('smb.custom.conf');
  });

  it('a deleted file, and a file whose text was not kept', () => {
    const [deleted] = evaluateDrift([file('missing', '/etc/appliance/snapraid.conf')]).conditions;
    expect(deleted).toMatchObject({
      value: 'deleted',
      title: 'Generated file snapraid.conf deleted outside the service',
    });
    expect(deleted!.message).toContain('SnapRAID');
    const f = file(
      { sha256: 'c'.repeat(64), content: null },
      '/var/lib/appliance/stacks/app/docker-compose.yml',
    );
    const [binary] = evaluateDrift([f]).conditions;
    expect(binary!.message).toContain('its content differs from what the service wrote');
    expect(binary!.message).toContain('edited by hand');
  });
});
