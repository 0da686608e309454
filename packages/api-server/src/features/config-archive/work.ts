/**
 * The feature's heavy half — the archive reader and writer, age, tar, busboy, and the ports built
 * from the context — loaded by the first export, preview or import, not at the service's start
 * (FEATURES.md, "Keep heavy code off the start path").
 */
export { importUploadWithProgress, previewUpload, startGuardedExport } from '@appliance/archive-preview';
export { exportDeps, exportGuard, importDeps, previewDeps } from './deps.ts';
