/** In-memory ports of `@appliance/accounts` for tests (package `@appliance/accounts/test-support`). */
export * from './memory-store.ts';
export * from './fixtures.ts';
