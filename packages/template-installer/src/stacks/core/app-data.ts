/**
 * The app-data folders of a stack: the host folders its services bind-mount that lie strictly below
 * the app-data root, from @appliance/common's app-data module (the one backups use). Only these are
 * ever removed with a stack's data; a bind of a share, of the root itself or outside it never is.
 */
export { bindSources, appDataFolders as dataFolders } from '@appliance/common';
