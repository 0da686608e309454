/**
 * Issue 8 benchmark (01 §5): the config import preview of the real service, uploaded over its Unix
 * socket, against `zstd -dc archive.tar.zst | sha256sum` in the same run.
 *
 * - Time: a seeded installation's export with ~200 MiB of incompressible filler under the catalog
 *   (no passphrase). Archive in the page cache, one warm-up, then the median of N runs; the preview
 *   is timed at the client from the first byte sent to the last byte received. Target ≤ 1.5×.
 * - Memory: an archive just under 512 MiB (content too), previewed by a freshly started server that
 *   serves only this request; its VmHWM (peak RSS) must stay under 200 MiB.
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
    runs: { type: 'string', default: '5' },
    'time-mib': { type: 'string', default: '200' },
    'memory-mib': { type: 'string', default: '500' },
  },
});
const RUNS = Number(values.runs);
const MiB = 1024 * 1024;

async function preview(app: ArchiveService, file: string) {
  const r = await request(app.socket, 'POST', '/config/import/preview', multipartAround(file));
  if (r.status !== 200) throw new Error(`preview: ${r.status} ${r.text.slice(0, 300)}`);
  return r.ms;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-archive-preview-'));
let failed = false;
try {
  // ── time ──
  const timeArchive = path.join(work, 'time.tar.zst');
  await makeArchive(Number(values['time-mib']), timeArchive);
  await pageCache(timeArchive);
  const app = await startArchiveService('preview');
  let ours: number[] = [];
  let ref: number[] = [];
  try {
    await preview(app, timeArchive); // warm-up
    await reference(timeArchive);
    for (let i = 0; i < RUNS; i++) {
      ours.push(await preview(app, timeArchive));
      ref.push(await reference(timeArchive));
    }
  } finally {
    await app.stop();
  }
  const ratio = median(ours) / median(ref);
  report(
    `preview of a ${(fs.statSync(timeArchive).size / MiB).toFixed(1)} MiB archive over the Unix socket vs zstd -dc | sha256sum (median of ${RUNS})`,
    {
      'preview ms (median)': median(ours),
      'zstd -dc | sha256sum ms (median)': median(ref),
      'ratio (target ≤ 1.5)': ratio,
      'preview runs ms': ours.map(Math.round).join(', '),
      'reference runs ms': ref.map(Math.round).join(', '),
    },
  );
  if (!(ratio <= 1.5)) failed = true;
  fs.rmSync(timeArchive);
  ours = [];
  ref = [];

  // ── memory ──
  const memArchive = path.join(work, 'memory.tar.zst');
  await makeArchive(Number(values['memory-mib']), memArchive);
  const { hwm, idle, ms } = await peakRss('preview', memArchive, preview);
  report(
    `peak RSS of a fresh server previewing a ${(fs.statSync(memArchive).size / MiB).toFixed(1)} MiB archive`,
    {
      'VmHWM MiB (target < 200)': hwm,
      'VmHWM MiB of the idle server before the request': idle,
      'growth of the peak during the preview MiB': hwm - idle,
      'preview ms': ms,
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
