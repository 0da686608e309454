export * from './backups.ts';
export * from './catalog.ts';
export * from './conditions.ts';
export * from './install.ts';
export * from './logs.ts';
export * from './ports.ts';
export * from './stack-requests.ts';
export * from './startup.ts';
