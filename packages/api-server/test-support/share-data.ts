/**
 * Fixture of the share data delete system tests: a lab array of real XFS loop disks (parity, data
 * disks, cache) mounted under the sandbox root, its rows in the database, and helpers to fill shares
 * and fingerprint every file on the disks.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLoopDisk, type LoopDisk } from '@appliance/lab';
import type { Sandbox } from './sandbox.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

export interface LabArray {
  disks: Map<string, LoopDisk>;
  /** Real path of a logical path inside the sandbox. */
  real(logical: string): string;
  destroy(): Promise<void>;
}

/** Creates and mounts `/mnt/parity1`, `/mnt/disk1..N` and `/mnt/cache`, and records the array rows. */
export async function createLabArray(s: Sandbox, dataDisks: number, imageDir: string): Promise<LabArray> {
  const disks = new Map<string, LoopDisk>();
  const real = (logical: string) => path.join(s.root, logical);
  const array: LabArray = {
    disks,
    real,
    async destroy() {
      for (const [mountpoint, disk] of disks) {
        await run('umount', ['-l', real(mountpoint)]).catch(() => undefined);
        await disk.destroy().catch(() => undefined);
      }
    },
  };
  try {
    const mountpoints = [
      '/mnt/parity1',
      ...Array.from({ length: dataDisks }, (_, i) => `/mnt/disk${i + 1}`),
      '/mnt/cache',
    ];
    const now = new Date().toISOString();
    const sqlite = s.server.ctx.sqlite;
    sqlite
      .prepare(
        'insert into array_settings (id, create_policy, migration_pending, created_at) values (1, ?, 0, ?)',
      )
      .run('mfs', now);
    const insert = sqlite.prepare(
      `insert into array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, size_bytes, mountpoint)
       values (?, ?, ?, 'xfs', ?, 1, ?, ?)`,
    );
    for (const mountpoint of mountpoints) {
      const disk = await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', imageDir });
      disks.set(mountpoint, disk);
      fs.mkdirSync(real(mountpoint), { recursive: true });
      await run('mount', [disk.device, real(mountpoint)]);
      const uuid = (await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', disk.device])).stdout.trim();
      const [, role, index] = /^\/mnt\/(parity|disk|cache)(\d*)$/.exec(mountpoint)!;
      insert.run(
        role === 'disk' ? 'data' : role,
        Number(index || 1),
        disk.device,
        uuid,
        disk.sizeBytes,
        mountpoint,
      );
    }
    return array;
  } catch (err) {
    await array.destroy();
    throw err;
  }
}

export interface TreeSpec {
  /** Directories per level (2 levels) and files per leaf directory. */
  dirs?: number;
  files?: number;
  /** Bytes per file. */
  size?: number;
}

/** Fills a directory with `dirs × dirs` leaf directories of `files` files; returns what was created. */
export function fillTree(dir: string, spec: TreeSpec = {}): { files: number; dirs: number } {
  const { dirs = 2, files = 3, size = 100 } = spec;
  fs.mkdirSync(dir, { recursive: true });
  let f = 0;
  let d = 0;
  for (let i = 0; i < dirs; i++) {
    fs.mkdirSync(path.join(dir, `dir${i}`));
    d += 1;
    for (let j = 0; j < dirs; j++) {
      const leaf = path.join(dir, `dir${i}`, `sub${j}`);
      fs.mkdirSync(leaf);
      d += 1;
      for (let k = 0; k < files; k++) {
        fs.writeFileSync(path.join(leaf, `file${k}.bin`), Buffer.alloc(size, (i * 31 + j * 7 + k) & 0xff));
        f += 1;
      }
    }
  }
  return { files: f, dirs: d };
}

/**
 * A fingerprint of every entry below `root` (links not followed): type, mode, owner, link target or
 * content hash. Paths are relative to `root`.
 */
export function fingerprint(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const full = path.join(dir, name);
      const st = fs.lstatSync(full);
      const rel = path.relative(root, full);
      const meta = `${st.mode.toString(8)} ${st.uid}:${st.gid}`;
      if (st.isSymbolicLink()) out.set(rel, `link ${meta} -> ${fs.readlinkSync(full)}`);
      else if (st.isDirectory()) {
        out.set(rel, `dir ${meta}`);
        walk(full);
      } else {
        out.set(rel, `file ${meta} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`);
      }
    }
  };
  walk(root);
  return out;
}

/** The fingerprint entries that are not below one of `excluded` (relative paths). */
export function without(print: Map<string, string>, excluded: string[]): Map<string, string> {
  return new Map([...print].filter(([rel]) => !excluded.some((e) => rel.startsWith(`${e}/`))));
}

export const removeContents = (dir: string): void => {
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
};

export { run };
