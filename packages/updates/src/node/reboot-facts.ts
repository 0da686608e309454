import fs from 'node:fs/promises';
import path from 'node:path';
import type { RebootFacts } from '../core/reboot.ts';
import type { RebootPaths } from '../ports.ts';

/** The reboot paths under a host root ('' = this machine). */
export function rebootPaths(hostRoot: string): RebootPaths {
  const at = (p: string) => path.join(hostRoot || '/', p);
  return {
    flagFile: at('run/reboot-required'),
    pkgsFile: at('run/reboot-required.pkgs'),
    bootDir: at('boot'),
    osRelease: at('proc/sys/kernel/osrelease'),
  };
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Reads the flag, the packages it names, the running kernel and the kernels under /boot. */
export async function readRebootFacts(paths: RebootPaths): Promise<RebootFacts> {
  const [flag, pkgs, release] = await Promise.all([
    readOptional(paths.flagFile),
    readOptional(paths.pkgsFile),
    readOptional(paths.osRelease),
  ]);
  let boot: string[] = [];
  try {
    boot = await fs.readdir(paths.bootDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return {
    flagged: flag !== null,
    packages: (pkgs ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
    runningKernel: release?.trim() || null,
    installedKernels: boot.filter((f) => f.startsWith('vmlinuz-')).map((f) => f.slice('vmlinuz-'.length)),
  };
}
