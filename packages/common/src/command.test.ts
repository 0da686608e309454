import { describe, expect, it } from 'vitest';
import { createCommandRunner } from './command.ts';
import { AppError } from './errors.ts';

describe('createCommandRunner', () => {
  const runner = createCommandRunner();
  it('runs an argument list without a shell and returns the exit code', async () => {
    const r = await runner.run('sh', ['-c', 'echo "$0"; exit 3', '$(touch /nonexistent)']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('$(touch /nonexistent)\n');
  });
  it('passes only a minimal environment', async () => {
    process.env['APPLIANCE_TEST_SECRET'] = 'leak';
    const r = await runner.run('env', []);
    expect(r.stdout).not.toContain('APPLIANCE_TEST_SECRET');
    expect(r.stdout).toContain('LC_ALL=C.UTF-8');
  });
  it('writes input to stdin', async () => {
    const r = await runner.run('cat', [], { input: 'pw\n' });
    expect(r.stdout).toBe('pw\n');
  });
  it('kills a command and its children at the timeout', async () => {
    const t = Date.now();
    const r = await runner.run('sh', ['-c', 'sleep 30 & sleep 30; echo never'], { timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.stdout).toBe('');
    expect(Date.now() - t).toBeLessThan(5_000);
  });
  it('names the Debian package of a missing tool', async () => {
    const fake = createCommandRunner({ path: '/nonexistent' });
    const err = await fake.run('mkfs.xfs', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(501);
    expect((err as AppError).message).toContain('xfsprogs');
  });
});
