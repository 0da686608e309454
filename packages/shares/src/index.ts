export * from './access/index.ts';
export * from './data-delete/index.ts';
