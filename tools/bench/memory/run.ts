/**
 * The service's resident memory with a lab array (issue 26: ≤ 96 MiB idle), measured through its
 * launcher like an installation runs it: lab mode, three loop disks (parity and two data disks) in a
 * private image directory with the guard shims first on the service's tool path, the admin and a
 * token made through the API (two scrypt hashes), then `POST /disks/array` (xfs, mounts, the
 * mergerfs pool, snapraid.conf). Figures (VmRSS, 3 s after the last request):
 * - idle after setting the array up;
 * - idle after a restart with the array in place (how an appliance spends its days).
 * Reference in the same run: bare Node. Needs root, losetup, xfsprogs, mergerfs, snapraid.
 *
 *   node tools/bench/memory/run.ts
 * BENCH_SERVICE_LAUNCHER=<other checkout>/packages/api-server/bin/appliance-server measures another
 * build the same way.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { erasePhrase } from '../../../packages/common/src/index.ts';
import { installGuardShims } from '../../../packages/api-server/test-support/disks/lab.ts';
import { LAB_TOOLS, unmountUnder } from '../../../packages/api-server/test-support/lab-array.ts';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '../../lab/src/index.ts';
import {
  adminToken,
  bareNodeRssMiB,
  type Child,
  figures,
  loadAverage,
  rssMiB,
  serviceCli,
  startListening,
} from '../src/harness.ts';

const MiB = 1024 * 1024;
const SETTLE_MS = 3000;
const TARGET_MIB = 96;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

await requirePrerequisites({ root: true, tools: LAB_TOOLS });
console.log(
  `memory with a lab array — Node ${process.version}, ${os.availableParallelism()} cores, load ${loadAverage()}`,
);
serviceCli(); // build first (turbo), outside any measurement
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
const imageDir = path.join(work, 'images');
const root = path.join(work, 'root');
const socketDir = fs.mkdtempSync('/tmp/apb-');
fs.mkdirSync(imageDir);
fs.mkdirSync(path.join(root, 'etc/appliance'), { recursive: true });
fs.writeFileSync(
  path.join(root, 'etc/appliance/config.toml'),
  `[lab]\nenabled = true\nimageDir = ${JSON.stringify(imageDir)}\n`,
);
const disks: LoopDisk[] = [];
let server: Child | null = null;
const start = async () =>
  startListening(
    [serviceCli(), '--root', root, '--listen', '127.0.0.1:0', '--socket', path.join(socketDir, 'a.sock')],
    { ...process.env, APPLIANCE_TOOL_PATH: toolPath },
  );
let toolPath = '';
try {
  toolPath = await installGuardShims(path.join(work, 'shims'), imageDir);
  disks.push(await createLoopDisk({ sizeBytes: 1024 * MiB, imageDir }));
  for (let i = 0; i < 2; i++) disks.push(await createLoopDisk({ sizeBytes: 512 * MiB, imageDir }));

  server = await start();
  const token = await adminToken(server.url);
  const setup = await fetch(`${server.url}/api/v1/disks/array`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      disks: disks.map((d, i) => ({ device: d.device, role: i === 0 ? 'parity' : 'data' })),
      confirmation: erasePhrase(disks.map((d) => d.device)),
    }),
  });
  if (setup.status !== 201) throw new Error(`array setup answered ${setup.status}: ${await setup.text()}`);
  await setup.text();
  const list = await fetch(`${server.url}/api/v1/disks`, { headers: { authorization: `Bearer ${token}` } });
  await list.text();
  await sleep(SETTLE_MS);
  const afterSetup = rssMiB(server.pid);
  await server.stop();
  server = null;

  server = await start();
  const status = await fetch(`${server.url}/api/v1/disks/array`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (status.status !== 200) throw new Error(`GET /disks/array answered ${status.status}`);
  await status.text();
  await sleep(SETTLE_MS);
  const afterRestart = rssMiB(server.pid);
  await server.stop();
  server = null;

  const bare = await bareNodeRssMiB();
  const ok = figures(
    `resident memory with a lab array (1 parity + 2 data loop disks), load ${loadAverage()}`,
    [
      {
        figure: 'idle RSS with a lab array, after a restart',
        value: `${afterRestart.toFixed(1)} MiB`,
        target: `≤ ${TARGET_MIB} MiB`,
        reference: `bare Node ${bare.toFixed(1)} MiB`,
        pass: afterRestart <= TARGET_MIB,
      },
      {
        figure: 'idle RSS after the admin, a token and the array setup',
        value: `${afterSetup.toFixed(1)} MiB`,
        target: `≤ ${TARGET_MIB} MiB`,
        reference: 'two scrypt hashes, mkfs, mounts, snapraid.conf done',
        pass: afterSetup <= TARGET_MIB,
      },
    ],
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  if (server) await server.stop().catch(() => undefined);
  await unmountUnder(root);
  for (const d of disks) await d.destroy().catch(() => undefined);
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(socketDir, { recursive: true, force: true });
}
