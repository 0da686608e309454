/**
 * The host's listening TCP sockets and bound UDP sockets with the process holding each
 * (/proc/net/{tcp,udp,tcp6,udp6} for the socket inodes, /proc/<pid>/fd for their owners).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HostListener } from '../ports.ts';

function parseTable(text: string, protocol: 'tcp' | 'udp'): { port: number; inode: string }[] {
  const wanted = protocol === 'tcp' ? '0A' : '07';
  const out: { port: number; inode: string }[] = [];
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || cols[3]!.toUpperCase() !== wanted) continue;
    const local = cols[1]!;
    const port = Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    if (Number.isInteger(port) && port > 0) out.push({ port, inode: cols[9]! });
  }
  return out;
}

export async function readHostListeners(procDir = '/proc'): Promise<HostListener[]> {
  const sockets: { port: number; inode: string }[] = [];
  for (const [file, protocol] of [
    ['tcp', 'tcp'],
    ['tcp6', 'tcp'],
    ['udp', 'udp'],
    ['udp6', 'udp'],
  ] as const) {
    const text = await fs.readFile(path.join(procDir, 'net', file), 'utf8').catch(() => '');
    sockets.push(...parseTable(text, protocol));
  }
  if (sockets.length === 0) return [];
  const wanted = new Set(sockets.map((s) => s.inode));
  const owners = new Map<string, string>();
  const pids = (await fs.readdir(procDir).catch(() => [] as string[])).filter((p) => /^\d+$/.test(p));
  for (const pid of pids) {
    if (owners.size === wanted.size) break;
    const fds = await fs.readdir(path.join(procDir, pid, 'fd')).catch(() => [] as string[]);
    let comm: string | null = null;
    for (const fd of fds) {
      const target = await fs.readlink(path.join(procDir, pid, 'fd', fd)).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (!m || !wanted.has(m[1]!) || owners.has(m[1]!)) continue;
      comm ??= (await fs.readFile(path.join(procDir, pid, 'comm'), 'utf8').catch(() => '?')).trim();
      owners.set(m[1]!, `process ${comm} (pid ${pid})`);
    }
  }
  const out = new Map<number, HostListener>();
  for (const s of sockets) {
    if (out.has(s.port) && !out.get(s.port)!.holder.startsWith('an unknown')) continue;
    out.set(s.port, { port: s.port, holder: owners.get(s.inode) ?? 'an unknown process' });
  }
  return [...out.values()];
}
