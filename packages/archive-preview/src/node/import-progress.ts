/**
 * An import with its progress (08 §14): one event per step as it starts (the target is the
 * archive's hostname), and a last one with the outcome — `ok`, or `failed` with the step that
 * failed. Nothing is published for an upload refused before the first step.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { isRefusal } from '@appliance/common';
import { type ImportDeps, type ImportResponse, importUpload } from './import.ts';

export interface ImportProgressEvent {
  /** `configuration` until the archive's hostname is known. */
  target: string;
  done: boolean;
  progress: Record<string, unknown>;
}

export async function importUploadWithProgress(
  deps: ImportDeps,
  headers: IncomingHttpHeaders,
  body: Readable,
  publish: (event: ImportProgressEvent) => void,
): Promise<ImportResponse> {
  let target = 'configuration';
  let started = false;
  try {
    const result = await importUpload(
      {
        ...deps,
        onStep: (p) => {
          started = true;
          target = p.hostname;
          publish({ target, done: false, progress: { step: p.step, index: p.index, total: p.total } });
          deps.onStep?.(p);
        },
      },
      headers,
      body,
    );
    publish({ target, done: true, progress: { outcome: 'ok' } });
    return result;
  } catch (err) {
    if (started) {
      const step = isRefusal(err) ? err.details?.['step'] : undefined;
      publish({ target, done: true, progress: { outcome: 'failed', ...(step ? { step } : {}) } });
    }
    throw err;
  }
}
