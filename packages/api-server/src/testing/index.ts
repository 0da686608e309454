export * from './sandbox.ts';
export * from './array.ts';
