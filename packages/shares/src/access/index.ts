// Shares and share access (06, 08 §6): the model, the pure core and the host adapters.
export * from './model.ts';
export * from './errors.ts';
export * from './branches.ts';
export * from './core/permissions.ts';
export * from './core/effective-access.ts';
export * from './core/render-smb-conf.ts';
export * from './core/share-definitions.ts';
export * from './core/coalesce.ts';
export * from './node/smb-conf-writer.ts';
export * from './node/smb-regenerator.ts';
export * from './node/samba-reload.ts';
export * from './node/samba-accounts.ts';
export * from './node/branch-dirs.ts';
export * from './core/samba-sandbox.ts';
export * from './core/revocations.ts';
export * from './node/sandbox-smbd.ts';
