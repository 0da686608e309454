/**
 * Issue 16 benchmark (08 §14): the config import of the real service, uploaded over its Unix
 * socket into a fresh box, against `zstd -dc archive.tar.zst | sha256sum` in the same run.
 *
 * - Time: an installation's export with ~200 MiB of incompressible filler under the catalog (no
 *   passphrase), imported into a freshly started server each run (the restore-a-new-box case; a
 *   box that already holds a large catalog also exports it first, as its pre-import archive).
 *   Archive in the page cache, one warm-up, then the median of N runs; timed at the client from
 *   the first byte sent to the last byte received. Target ≤ 2.5×.
 * - Memory: a ~500 MiB archive imported by a freshly started server that serves only this request;
 *   its VmHWM (peak RSS) must stay under 200 MiB.
 *
 * Exits non-zero on a miss.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type ArchiveService,
  makeArchive,
  median,
  multipartAround,
  pageCache,
  peakRss,
  reference,
  request,
  startArchiveService,
} from '../src/archive-service.ts';
import { report } from '../src/harness.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'time-mib': { type: 'string', default: '200' },
    'memory-mib': { type: 'string', default: '500' },
  },
});
const RUNS = Number(values.runs);
const MiB = 1024 * 1024;

async function importInto(app: ArchiveService, file: string) {
  const r = await request(
    app.socket,
    'POST',
    '/config/import',
    multipartAround(file, { confirmation: 'RESTORE bench' }),
  );
  if (r.status !== 200) throw new Error(`import: ${r.status} ${r.text.slice(0, 300)}`);
  return r.ms;
}

/** One import into a freshly started box (its start is not timed). */
async function freshImport(file: string) {
  const app = await startArchiveService('import');
  try {
    return await importInto(app, file);
  } finally {
    await app.stop();
  }
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-config-import-'));
let failed = false;
try {
  // ── time ──
  const timeArchive = path.join(work, 'time.tar.zst');
  await makeArchive(Number(values['time-mib']), timeArchive);
  await pageCache(timeArchive);
  let ours: number[] = [];
  let ref: number[] = [];
  await freshImport(timeArchive); // warm-up
  await reference(timeArchive);
  for (let i = 0; i < RUNS; i++) {
    ours.push(await freshImport(timeArchive));
    ref.push(await reference(timeArchive));
  }
  const ratio = median(ours) / median(ref);
  report(
    `import of a ${(fs.statSync(timeArchive).size / MiB).toFixed(1)} MiB archive into a fresh box over the Unix socket vs zstd -dc | sha256sum (median of ${RUNS})`,
    {
      'import ms (median)': median(ours),
      'zstd -dc | sha256sum ms (median)': median(ref),
      'ratio (target ≤ 2.5)': ratio,
      'import runs ms': ours.map(Math.round).join(', '),
      'reference runs ms': ref.map(Math.round).join(', '),
    },
  );
  if (!(ratio <= 2.5)) failed = true;
  fs.rmSync(timeArchive);
  ours = [];
  ref = [];

  // ── memory ──
  const memArchive = path.join(work, 'memory.tar.zst');
  await makeArchive(Number(values['memory-mib']), memArchive);
  const { hwm, idle, ms } = await peakRss('import', memArchive, importInto);
  report(
    `peak RSS of a fresh server importing a ${(fs.statSync(memArchive).size / MiB).toFixed(1)} MiB archive`,
    {
      'VmHWM MiB (target < 200)': hwm,
      'VmHWM MiB of the idle server before the request': idle,
      'growth of the peak during the import MiB': hwm - idle,
      'import ms': ms,
    },
  );
  if (!(hwm < 200)) failed = true;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.log('\nMISS: a target was not met.');
  process.exitCode = 1;
}
