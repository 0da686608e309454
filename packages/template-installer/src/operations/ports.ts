/**
 * What the apps operations (requests of the stack routes, the install routes, the catalog view)
 * need beyond the stack jobs' own ports: the job runner as the requests start jobs, the audit
 * log, the drift watcher's record of written files and the install's progress events. The
 * api-server builds these for one request (its actor closed over); tests pass `memoryAppsPorts()`
 * (test-support).
 */
import type { JobKind, JobView } from '@appliance/jobs';
import type { InstallProgressData } from '../jobs/install-progress.ts';
import type { StackJobPorts } from '../jobs/ports.ts';
import type { Installer } from '../node/installer.ts';

/** Where templates put their `appdata` folders (docs/decisions/backups.md): the only data removed. */
export const APPDATA_ROOT = '/mnt/cache';

/** The job runner as a request sees it (a `JobRunner` has this shape, the actor bound by the server). */
export interface AppsJobs {
  /** Refuses (`job_running`) while a job holds one of `groups`. */
  assertFree(groups: readonly string[]): void;
  start<P, R>(
    kind: JobKind<P, R>,
    params: P,
    options: { target: string; auditOperation: string },
  ): Promise<{ view: JobView<P, R> }>;
}

/** One audit row of the request's actor. */
export interface AppsAuditEntry {
  operation: string;
  target: string;
  outcome: 'ok' | 'failed';
  details?: Record<string, unknown>;
}

export interface AppsPorts {
  jobs: AppsJobs;
  /** The stack jobs' ports (the stack operations, backups, conditions). */
  stackJobs: StackJobPorts;
  installer: Pick<Installer, 'preview' | 'install' | 'createStack' | 'editValues'>;
  audit(entry: AppsAuditEntry): Promise<void>;
  /**
   * The HTTP status the service answers an error with: a values edit refused for the request
   * (below 500) writes no audit row, a failure of the service does.
   */
  statusOf(error: unknown): number;
  /** Real path of `/var/lib/appliance/stacks`. */
  stacksDir: string;
  /** A file the service just wrote (the drift watcher compares it later, issue 22). */
  recordFile(path: string): void;
  /** Progress events of an install (08 §12). */
  publishProgress(data: InstallProgressData): void;
  uuid(): string;
}
