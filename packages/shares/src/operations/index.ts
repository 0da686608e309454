// Operations (issue 33): share definitions, grants, smb.conf and Samba, share data delete, over ports.
export * from './ports.ts';
export * from './regenerate.ts';
export * from './share-definitions.ts';
export * from './share-permissions.ts';
export * from './samba-service.ts';
export * from './data-delete.ts';
export * from './share-delete-guard.ts';
export * from './samba-setup.ts';
export * from './facts.ts';
