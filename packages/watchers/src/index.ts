// Core: the model, thresholds and every watcher's decision and messages (pure).
export * from './core/model.ts';
export * from './core/settings.ts';
export * from './core/format.ts';
export * from './core/disks.ts';
export * from './core/space.ts';
export * from './core/smart.ts';
export * from './core/drift.ts';
export * from './core/certificate.ts';
export * from './core/containers.ts';
export * from './core/ups.ts';
// Adapters: the probes that read the facts.
export * from './node/statfs.ts';
export * from './node/mounts.ts';
export * from './node/smartctl.ts';
export * from './node/certificate.ts';
export * from './node/files.ts';
export * from './node/docker.ts';
export * from './node/nut.ts';
// The loops: a watcher's cycles on its interval, decisions applied to the conditions port.
export * from './ports.ts';
export * from './runner.ts';
// The appliance's watchers: facts through ports, decisions by the core.
export * from './watchers/index.ts';
// Operations: what the service's routes answer, over the same ports.
export * from './operations/smart-report.ts';
export * from './operations/watcher-settings.ts';
