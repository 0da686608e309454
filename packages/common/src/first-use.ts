/**
 * A value made on its first use instead of at start: the way a package keeps a heavy dependency
 * (a parser, a mailer, a crypto library) off the service's start path when the code that needs it
 * is synchronous (docs/decisions/performance.md, "Start-up"). Asynchronous code simply
 * `await import()`s the dependency where it needs it.
 *
 * Typical use: a `createRequire(import.meta.url)` of the dependency inside the function given
 * here, and a call of the returned function where the dependency is needed (see
 * `packages/template-installer`'s YAML and `packages/archive-preview`'s busboy).
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}

/**
 * node:zlib, loaded on its first use: it is not needed at start, and importing it costs the idle
 * service about half a MiB (docs/decisions/performance.md, "The web globals").
 */
export const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
