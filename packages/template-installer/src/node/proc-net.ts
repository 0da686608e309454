/** Host sockets in use (02 §6 set 1): listening TCP and bound UDP ports from /proc/net. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@appliance/common';

/** Ports of one /proc/net table: TCP rows in state 0A (LISTEN), UDP rows in state 07. */
export function parseProcNetTable(text: string, protocol: 'tcp' | 'udp'): number[] {
  const wanted = protocol === 'tcp' ? '0A' : '07';
  const out: number[] = [];
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4) continue;
    const local = cols[1]!;
    if (cols[3]!.toUpperCase() !== wanted) continue;
    const port = Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    if (Number.isInteger(port) && port > 0) out.push(port);
  }
  return out;
}

/** `tcp` and `udp` must be readable; `tcp6` and `udp6` count when present. */
export async function readHostSocketPorts(procDir: string): Promise<Set<number>> {
  const ports = new Set<number>();
  for (const [file, protocol, required] of [
    ['tcp', 'tcp', true],
    ['udp', 'udp', true],
    ['tcp6', 'tcp', false],
    ['udp6', 'udp', false],
  ] as const) {
    let text: string;
    try {
      text = await fs.readFile(path.join(procDir, 'net', file), 'utf8');
    } catch (e) {
      if (!required && (e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new AppError(500, 'internal', 'The ports in use on this host could not be read.', undefined);
    }
    for (const p of parseProcNetTable(text, protocol)) ports.add(p);
  }
  return ports;
}
