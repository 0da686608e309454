/**
 * The app data of a stack (issue 23, decided in docs/decisions/backups.md): the folders its services
 * bind-mount below the appdata location (`/mnt/cache`), from @appliance/common's app-data module,
 * which the stack removal of @appliance/template-installer uses too.
 */
export { appDataFolders as appDataRoots, bindSources } from '@appliance/common';
