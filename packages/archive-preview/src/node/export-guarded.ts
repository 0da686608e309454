/**
 * An export as a service serves it (01 §2, 08 §14): the archive stream holds the import lock until
 * it ends (an import never swaps files under a running export), and the export is audited `ok`
 * when the stream ended, `failed` when it could not start or broke mid-way.
 */
import { type ExportDeps, type ExportResult, startExport } from './export.ts';

export interface ExportGuard {
  /** Enters the import lock; returns its release. */
  enter(): () => void;
  /** Records the export's audit row (`configuration` when it never started). */
  audit(target: string, outcome: 'ok' | 'failed'): Promise<void>;
  log(message: string, fields?: Record<string, unknown>): void;
}

export async function startGuardedExport(deps: ExportDeps, guard: ExportGuard): Promise<ExportResult> {
  const leave = guard.enter();
  let result: ExportResult;
  try {
    result = await startExport(deps);
  } catch (err) {
    leave();
    await guard.audit('configuration', 'failed').catch(() => undefined);
    throw err;
  }
  result.done.then(leave, leave);
  result.done
    .then(
      () => guard.audit(result.filename, 'ok'),
      (err: unknown) => {
        guard.log('config export failed mid-stream', {
          error: err instanceof Error ? err.message : String(err),
        });
        return guard.audit(result.filename, 'failed');
      },
    )
    .catch(() => undefined);
  return result;
}
