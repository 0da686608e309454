/** Test helpers for system tests of external disks (package `@appliance/external-disk/testing`). */
export * from './guard-shims.ts';
export * from './lab-disks.ts';
export * from './memory-store.ts';
export * from './memory-guard.ts';
export * from './memory-rows.ts';
