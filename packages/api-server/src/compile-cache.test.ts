import module from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { settleCompileCache } from './compile-cache.ts';

describe('settleCompileCache', () => {
  it('takes NODE_COMPILE_CACHE out of the environment the service passes to the tools it runs', () => {
    const env: NodeJS.ProcessEnv = {
      NODE_COMPILE_CACHE: '/var/cache/appliance/node-compile-cache',
      PATH: '/bin',
    };
    settleCompileCache(env, 0);
    expect(env).toEqual({ PATH: '/bin' });
  });

  it('schedules no flush when Node runs without a compile cache (the test process has none)', () => {
    expect(module.getCompileCacheDir()).toBeUndefined();
    vi.useFakeTimers();
    try {
      settleCompileCache({}, 0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
