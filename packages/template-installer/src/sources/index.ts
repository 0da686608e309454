export * from './errors.ts';
export * from './operations.ts';
export * from './ports.ts';
