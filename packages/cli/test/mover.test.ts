/**
 * `appliance mover` and `appliance mover run` against a real server without a cache disk: the
 * status says there is nothing to move, the run is refused with the API's sentence (exit 1); with a
 * recorded run, the status lists what it moved and skipped. The moves themselves are the server's
 * system test (features/mover).
 */
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusText } from '../src/features/mover/index.ts';
import { appliance } from './support.ts';

let s: Sandbox;
const cli = (...args: string[]) => appliance([...args, '--socket', s.socket]);

beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
});
afterAll(async () => {
  await s?.close();
});

describe('appliance mover', () => {
  it('shows the status (the default subcommand) and refuses a run without a cache (exit 1)', async () => {
    const status = await cli('mover');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/cache:\s+no cache disk: nothing to move/);
    expect(status.stdout).toMatch(/schedule:\s+daily at 02:00, verify size-mtime/);
    expect(status.stdout).toMatch(/last run:\s+never/);
    const json = await cli('mover', 'status', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ configured: false, lastRun: null });
    const run = await cli('mover', 'run');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no cache disk/);
  });

  it('lists the skipped files of the last run with their reasons', () => {
    const text = statusText({
      configured: true,
      shares: ['media'],
      settings: { enabled: true, time: '02:00', verify: 'size-mtime' },
      running: null,
      nextRun: null,
      lastRun: {
        jobId: 'j',
        state: 'succeeded',
        trigger: 'schedule',
        startedAt: new Date().toISOString(),
        endedAt: new Date().toISOString(),
        movedFiles: 12,
        movedBytes: 3 * 1024 * 1024,
        skippedCount: 2,
        skippedByReason: { open_for_writing: 1, exists_on_array: 1 },
        skipped: [
          { share: 'media', path: 'a.mkv', reason: 'open_for_writing' },
          { share: 'media', path: 'b.jpg', reason: 'exists_on_array' },
        ],
        error: null,
      },
    });
    expect(text).toMatch(/last run:\s+.*succeeded, moved 12 files \(3(\.0)? MiB\), skipped 2/);
    expect(text).toContain('/mnt/user/media/a.mkv: open for writing');
    expect(text).toContain('/mnt/user/media/b.jpg: already on a data disk');
  });
});
