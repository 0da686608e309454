export * from './access/index.ts';
export * from './data-delete/index.ts';
export * from './mover/index.ts';
export * from './operations/index.ts';
