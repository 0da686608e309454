export * from './definitions.ts';
export * from './errors.ts';
export * from './install-progress.ts';
export * from './ports.ts';
export * from './stack-jobs.ts';
export * from './views.ts';
