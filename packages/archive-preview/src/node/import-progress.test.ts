/**
 * The import's progress events and the guarded export (what a service serves): the events of a
 * run that succeeds, fails at a step, or is refused before any step; the export's lock and audit.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { fixedClock, isRefusal } from '@appliance/common';
import { afterEach, describe, expect, it } from 'vitest';
import { importBody } from '../test-support/multipart.ts';
import { createSandbox, type Sandbox } from '../test-support/sandbox.ts';
import type { ExportDeps } from './export.ts';
import { startGuardedExport } from './export-guarded.ts';
import type { ImportDeps } from './import.ts';
import { type ImportProgressEvent, importUploadWithProgress } from './import-progress.ts';

const open: Sandbox[] = [];
afterEach(() => {
  for (const sb of open.splice(0)) sb.close();
});
const sandbox = () => {
  const sb = createSandbox();
  open.push(sb);
  return sb;
};

const exportDeps = (sb: Sandbox): ExportDeps => ({
  paths: sb.paths,
  db: sb.db,
  sealer: sb.sealer,
  machineKey: () => fs.readFileSync(sb.paths.machineKey),
  appVersion: '1.4.0',
  clock: fixedClock('2026-09-03T04:05:06.000Z'),
});

/** The import's ports on the sandbox, with smb.conf, testparm and the mounts stubbed. */
const importDeps = (sb: Sandbox, extra: Partial<ImportDeps> = {}): ImportDeps => ({
  ...sb.deps(),
  sealer: sb.sealer,
  exportDeps: exportDeps(sb),
  tryLock: () => () => undefined,
  renderSmbConf: async () => '[global]\n',
  validateSmbConf: async () => undefined,
  mounter: { mount: async () => undefined, unmount: async () => undefined },
  auditRow: (db, details) => {
    db.prepare(
      "INSERT INTO audit_log (at, actor, operation, target, outcome, details) VALUES ('2026-09-03T04:05:06.000Z', 'local', 'config.import', 'nas', 'ok', ?)",
    ).run(JSON.stringify(details));
  },
  ...extra,
});

async function run(deps: ImportDeps, archive: Buffer, confirmation: string) {
  const events: ImportProgressEvent[] = [];
  const b = importBody(archive, { confirmation });
  const outcome = await importUploadWithProgress(
    deps,
    { 'content-type': b.contentType, 'content-length': String(b.body.length) },
    Readable.from([b.body]),
    (e) => events.push(e),
  ).then(
    () => 'ok',
    (err: unknown) => (isRefusal(err) ? err.code : String(err)),
  );
  return { outcome, events };
}

describe('the import’s progress', () => {
  it('one event per step under the archive’s hostname, then ok', async () => {
    const sb = sandbox();
    const { outcome, events } = await run(importDeps(sb), await sb.exportArchive(), 'RESTORE nas');
    expect(outcome).toBe('ok');
    const steps = events.filter((e) => !e.done);
    expect(steps.length).toBeGreaterThan(2);
    expect(steps.map((e) => e.progress['index'])).toEqual(steps.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.target))).toEqual(new Set(['nas']));
    expect(events.at(-1)).toEqual({ target: 'nas', done: true, progress: { outcome: 'ok' } });
  });

  it('a failure at a step ends with failed and that step', async () => {
    const sb = sandbox();
    const deps = importDeps(sb, {
      beforeStep: (step) => {
        if (step === 'commit') throw new Error('injected');
      },
    });
    const { outcome, events } = await run(deps, await sb.exportArchive(), 'RESTORE nas');
    expect(outcome).toBe('import_failed');
    expect(events.at(-1)).toEqual({
      target: 'nas',
      done: true,
      progress: { outcome: 'failed', step: 'commit' },
    });
  });

  it('a refusal before the first step publishes nothing', async () => {
    const sb = sandbox();
    const { outcome, events } = await run(importDeps(sb), await sb.exportArchive(), 'RESTORE other');
    expect(outcome).toBe('confirmation_required');
    expect(events).toEqual([]);
  });
});

describe('the guarded export', () => {
  it('holds the lock until the stream ended, then audits ok under the file name', async () => {
    const sb = sandbox();
    const log: string[] = [];
    const result = await startGuardedExport(exportDeps(sb), {
      enter: () => {
        log.push('enter');
        return () => log.push('leave');
      },
      audit: async (target, outcome) => void log.push(`audit ${target} ${outcome}`),
      log: () => undefined,
    });
    expect(log).toEqual(['enter']);
    for await (const _ of result.stream);
    await result.done;
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['enter', 'leave', `audit ${result.filename} ok`]);
  });

  it('a start that fails leaves the lock and audits failed', async () => {
    const sb = sandbox();
    const log: string[] = [];
    const broken = {
      ...exportDeps(sb),
      db: {
        prepare: () => {
          throw new Error('database gone');
        },
      },
    } as unknown as ExportDeps;
    const err = await startGuardedExport(broken, {
      enter: () => {
        log.push('enter');
        return () => log.push('leave');
      },
      audit: async (target, outcome) => void log.push(`audit ${target} ${outcome}`),
      log: () => undefined,
    }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/database gone/);
    expect(log).toEqual(['enter', 'leave', 'audit configuration failed']);
  });
});
