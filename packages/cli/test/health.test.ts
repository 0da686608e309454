/**
 * `appliance health` against a real server: the watchers with their last run, a failing one, and
 * the conditions that hold; `--json` is the API's answer.
 */
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { every } from '../src/features/health/index.ts';
import { appliance } from './support.ts';

let s: Sandbox;
const cli = (...args: string[]) => appliance([...args, '--socket', s.socket]);

beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
  s.server.ctx.watchers.register({
    name: 'broken',
    events: [],
    owns: ['broken:'],
    intervalSeconds: () => 90,
    observe: async () => {
      throw new Error('the probe cannot read /proc');
    },
  });
});
afterAll(async () => {
  await s?.close();
});

describe('appliance health', () => {
  it('prints each watcher (interval, last run, state) and the conditions that hold, with what and since', async () => {
    await s.server.ctx.watchers.runOnce('disks');
    await s.server.ctx.watchers.runOnce('broken');
    await s.server.ctx.conditions.hold('space:pool', {
      eventType: 'pool_above_threshold',
      title: 'The pool is 92 % full',
      message: 'The pool /mnt/user is 92 % full.',
      subject: 'the pool /mnt/user',
      value: '92 %',
    });
    const r = await cli('health');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const recently = String.raw`(?:now|\d+ seconds? ago)`;
    expect(lines[0]).toMatch(/^WATCHER\s+EVERY\s+LAST RUN\s+STATE/);
    expect(lines.find((l) => l.startsWith('disks'))).toMatch(
      new RegExp(String.raw`^disks\s+5s\s+${recently}\s+ok`),
    );
    expect(lines.find((l) => l.startsWith('space'))).toMatch(/^space\s+1m\s+never\s+not run yet/);
    expect(lines.find((l) => l.startsWith('broken'))).toMatch(
      new RegExp(
        String.raw`^broken\s+90s\s+${recently}\s+FAILING since ${recently}: the probe cannot read /proc`,
      ),
    );
    expect(r.stdout).toMatch(
      new RegExp(
        String.raw`\n\nEVENT\s+THING\s+VALUE\s+SINCE\n\s*pool_above_threshold\s+the pool /mnt/user\s+92 %\s+${recently}`,
      ),
    );
    expect(r.stdout).toMatch(/[^\n]\n$/);
    const json = await cli('health', '--json');
    expect(JSON.parse(json.stdout)).toEqual(
      (await s.call('GET', '/health', undefined, { via: 'unix' })).body,
    );
  });

  it('says so when no condition holds', async () => {
    await s.server.ctx.conditions.clear('space:pool');
    const r = await cli('health');
    expect(r.stdout).toContain('No condition holds.');
    // the output ends with one newline, like every other command's, whatever its last line
    expect(r.stdout.endsWith('\n\nNo condition holds.\n')).toBe(true);
  });

  it('intervals read as the settings give them', () => {
    expect([5, 60, 90, 3600, 86_400, 7200].map(every)).toEqual(['5s', '1m', '90s', '1h', '1d', '2h']);
  });
});
