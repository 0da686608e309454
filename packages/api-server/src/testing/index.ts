export * from './sandbox.ts';
export * from './array.ts';
export * from './lab-array.ts';
