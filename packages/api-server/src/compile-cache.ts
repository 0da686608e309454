import module from 'node:module';

/**
 * Node's compile cache, which bin/appliance-server turns on (NODE_COMPILE_CACHE): a start after the
 * first loads the bundle's compiled code from disk instead of compiling it (docs/configuration.md,
 * "Node settings"). Shortly after start this writes what the start compiled (Node would otherwise
 * write it only at exit, which a killed service never reaches), and it keeps the setting away from
 * the programs the service runs, which have their own caches or none.
 */
export function settleCompileCache(env: NodeJS.ProcessEnv = process.env, delayMs = 1000): void {
  delete env['NODE_COMPILE_CACHE'];
  if (module.getCompileCacheDir() === undefined) return;
  setTimeout(() => module.flushCompileCache(), delayMs).unref();
}
