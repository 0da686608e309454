import module from 'node:module';
import { describe, expect, it } from 'vitest';
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

  it('writes nothing when Node runs without a compile cache (the test process has none)', () => {
    expect(module.getCompileCacheDir()).toBeUndefined();
    expect(() => settleCompileCache({}, 0)).not.toThrow();
  });
});
