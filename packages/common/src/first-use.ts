/**
 * A value made on its first use instead of at start: the way a package keeps a heavy dependency
 * (a parser, a mailer, a crypto library) off the service's start path when the code that needs it
 * is synchronous (docs/decisions/performance.md, "Start-up"). Asynchronous code simply
 * `await import('x')` where it needs it.
 *
 * ```ts
 * import { createRequire } from 'node:module';
 * import type * as Yaml from 'yaml';
 * const require = createRequire(import.meta.url);
 * const yaml = onFirstUse(() => require('yaml') as typeof Yaml);
 * yaml().parse(text);
 * ```
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
