/**
 * The install routes' orchestration (02 §2, §11): a preview (never writes), a template install
 * with its progress events and audit row, a hand-made stack; the compose file written is recorded
 * for the drift watcher (issue 22).
 */
import path from 'node:path';
import type { PlanRequest } from '../core/plan.ts';
import { installProgress } from '../jobs/install-progress.ts';
import type { AuditRecord, CreateStackInput } from '../node/installer.ts';
import type { AppsPorts } from './ports.ts';

/** The audit row of an install or create: outcome ok, else failed with the code in details. */
export const auditRecordOf = (ports: Pick<AppsPorts, 'audit'>) => (r: AuditRecord) =>
  ports.audit({
    operation: r.operation,
    target: r.target,
    outcome: r.outcome === 'ok' ? 'ok' : 'failed',
    ...(r.outcome === 'ok' ? {} : { details: { code: r.outcome } }),
  });

/** The compose file the service just wrote for a stack. */
const recordStackFiles = (ports: AppsPorts, name: string) =>
  ports.recordFile(path.join(ports.stacksDir, name, 'docker-compose.yml'));

/** The preview of an install; a `planDigest` in the request is accepted and ignored (02 §2: install only). */
export function previewTemplate(ports: AppsPorts, id: string, body: PlanRequest) {
  const { planDigest: _ignored, ...request } = body;
  return ports.installer.preview(id, request);
}

/** Installs a catalog template as a stack (nothing is started), with progress events (08 §12). */
export async function installTemplate(ports: AppsPorts, id: string, body: PlanRequest) {
  // progress events with target = the stack name, from the first write on
  const progress = installProgress({ publish: ports.publishProgress, uuid: ports.uuid }, body.name ?? id);
  const options = { audit: auditRecordOf(ports), onStep: progress.onStep };
  try {
    const result = await ports.installer.install(id, body, options);
    recordStackFiles(ports, result.stack.name);
    // The spaced events drain after the answer: progress never delays the install itself.
    void progress.finish(true);
    return result;
  } catch (err) {
    void progress.finish(false);
    throw err;
  }
}

/** Creates a hand-made stack (nothing is started). */
export async function createHandMadeStack(ports: AppsPorts, body: CreateStackInput) {
  const input =
    body.env === undefined
      ? { name: body.name, compose: body.compose }
      : { name: body.name, compose: body.compose, env: body.env };
  const stack = await ports.installer.createStack(input, { audit: auditRecordOf(ports) });
  recordStackFiles(ports, stack.name);
  return stack;
}
