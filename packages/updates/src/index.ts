// Core: decisions and parsers over plain facts (pure).
export * from './core/debian-version.ts';
export * from './core/reboot.ts';
export * from './core/apt.ts';
export * from './core/failure.ts';
export * from './ports.ts';
// Adapters: the reboot facts under a host root, apt and dpkg through the CommandRunner.
export * from './node/reboot-facts.ts';
export * from './node/apt.ts';
// Operations: what the server's jobs run.
export * from './operations/updates.ts';
export * from './operations/reboot.ts';
export * from './operations/reboot-schedule.ts';
// Certificate renewal over ACME (acme-client).
export * from './core/renewal.ts';
export * from './node/acme.ts';
export * from './operations/renewal.ts';
export * from './core/refusals.ts';
export * from './node/challenge-server.ts';
export * from './node/certificate-files.ts';
// Jobs: the typed definitions, their implementations and schedules over ports (@appliance/jobs).
export * from './jobs/update-jobs.ts';
// What the service wires: the status view, the jobs registered and started, the watchers, the host.
export * from './operations/status.ts';
export * from './jobs/register.ts';
export * from './operations/watchers.ts';
export * from './node/host.ts';
