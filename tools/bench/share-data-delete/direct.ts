// The tree deleter without the server (profiling aid for 05 §8): one XFS loop disk, identical trees,
// `rm -rf` vs deleteBranchTrees with 1, 2 and 4 worker threads, alternating, in one run.
//   node --conditions=@appliance/source tools/bench/share-data-delete/direct.ts [files] [threads,…]
// A thread count prefixed with `js` (e.g. `js1`) forces the pure-JS walker instead of the native addon.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHostPaths } from '../../../packages/common/src/index.ts';
import { closeIdleWorkers, deleteBranchTrees } from '../../../packages/shares/src/index.ts';
import { createLoopDisk } from '../../lab/src/index.ts';

const FILES = Number(process.argv[2] ?? 100_000);
const RUNS = (process.argv[3] ?? '1,2,4,1,2,4').split(',').map((spec) => ({
  spec,
  workers: Number(spec.replace(/^js/, '')),
  native: !spec.startsWith('js'),
}));
const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] }).toString();

function makeTree(dir: string, files: number): void {
  fs.mkdirSync(dir, { recursive: true });
  let left = files;
  for (let top = 0; left > 0; top++) {
    for (let sub = 0; sub < 10 && left > 0; sub++) {
      const leaf = path.join(dir, `t${top}`, `s${sub}`);
      fs.mkdirSync(leaf, { recursive: true });
      const n = Math.min(1000, left);
      for (let i = 0; i < n; i++) fs.closeSync(fs.openSync(path.join(leaf, `f${i}`), 'w'));
      left -= n;
    }
  }
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'share-data-delete-direct-'));
const disk = await createLoopDisk({ sizeBytes: 4 * 1024 ** 3, filesystem: 'xfs', imageDir: root });
const mount = path.join(root, 'mnt/disk1');
fs.mkdirSync(mount, { recursive: true });
sh('mount', [disk.device, mount]);
try {
  const paths = createHostPaths({ root });
  for (const { spec, workers, native } of RUNS) {
    makeTree(path.join(mount, 'rm'), FILES);
    makeTree(path.join(mount, 'media'), FILES);
    sh('sync', []);
    let t = performance.now();
    const rmCpu = spawnSync('/usr/bin/time', ['-f', '%U %S', 'rm', '-rf', path.join(mount, 'rm')])
      .stderr.toString()
      .trim();
    const rm = performance.now() - t;
    console.log(`  rm -rf CPU user/sys s: ${rmCpu}`);
    sh('sync', []);
    const st = fs.statSync(path.join(mount, 'media'));
    t = performance.now();
    const cpu0 = process.cpuUsage();
    const rss0 = process.memoryUsage.rss();
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 50);
    const r = await deleteBranchTrees({
      share: 'media',
      dryRun: false,
      paths,
      workers,
      native,
      branches: [
        {
          disk: '/mnt/disk1',
          path: '/mnt/disk1/media',
          realPath: path.join(mount, 'media'),
          dev: st.dev,
          ino: st.ino,
        },
      ],
    });
    const api = performance.now() - t;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    console.log(`  RSS ${(rss0 / 2 ** 20).toFixed(1)} MiB before, peak ${(peak / 2 ** 20).toFixed(1)} MiB`);
    console.log(
      `workers ${spec} (${r.walker}): rm -rf ${Math.round(rm)} ms, deleter ${Math.round(api)} ms (${r.branches[0]!.filesDeleted} files), ratio ${(rm / api).toFixed(2)}, deleter CPU user ${Math.round(cpu.user / 1000)} ms sys ${Math.round(cpu.system / 1000)} ms, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    sh('sync', []);
  }
} finally {
  await closeIdleWorkers();
  sh('umount', [mount]);
  await disk.destroy();
  fs.rmSync(root, { recursive: true, force: true });
}
