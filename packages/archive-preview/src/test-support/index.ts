export * from './sandbox.ts';
export * from './multipart.ts';
export * from './craft.ts';
export * from './age-cli.ts';
export * from './checked.ts';
