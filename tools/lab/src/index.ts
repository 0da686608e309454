export * from './loop-disks.ts';
export * from './dockerd.ts';
export * from './prereq.ts';
export * from './guard.ts';
export * from './tls.ts';
export * from './registry.ts';
export * from './nut.ts';
