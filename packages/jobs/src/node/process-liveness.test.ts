import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processStartTimeSync } from './index.ts';

/**
 * A killed service's tool is reparented to PID 1, which may leave it a zombie for a while after it
 * exits (a container's init does): the restart recovery must see it gone, not hold the array for it.
 */
describe('processStartTimeSync', () => {
  it('answers a start time for a running process and null for a zombie', async () => {
    // sh forks a short sleep, then execs a long one that never reaps it: the short one stays a zombie
    const child = spawn('/bin/sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const zombie = await new Promise<number>((resolve) =>
        child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
      );
      expect(processStartTimeSync(child.pid!)).toMatch(/^\d+$/);
      let state = '';
      for (let i = 0; i < 50 && state !== 'Z'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
        state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
      }
      expect(state).toBe('Z'); // the process table still holds it
      expect(processStartTimeSync(zombie)).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('answers null for a pid that does not exist', () => {
    expect(processStartTimeSync(2 ** 22 + 1)).toBeNull();
  });
});
