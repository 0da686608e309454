export * from './sandbox.ts';
