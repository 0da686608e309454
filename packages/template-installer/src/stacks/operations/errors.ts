/** The stack operations' refusals (stable codes). */
import { AppError } from '@appliance/common';
import type { PortConflict } from '../core/port-conflict.ts';
import { conflictSentence } from '../core/port-conflict.ts';

export const stackNotFound = (name: string) =>
  new AppError(404, 'stack_not_found', `There is no stack ${name}; list the stacks to see their names.`, {
    stack: name,
  });

export const portInUse = (name: string, conflicts: readonly PortConflict[]) =>
  new AppError(409, 'port_in_use', conflictSentence(name, conflicts), {
    stack: name,
    conflicts: conflicts.map((c) => ({ port: c.port, holder: c.holder })),
  });

/** The last meaningful lines of the tool's output (at most 1 KiB). */
export function lastLines(text: string, n = 5): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.slice(-n).join('\n').slice(-1024);
}

export const composeFailed = (name: string, what: string, output: string) =>
  new AppError(
    502,
    'compose_failed',
    `The compose tool could not ${what} the stack ${name}: ${lastLines(output, 1) || 'no output'}. Read the job's output and the stack's logs, fix the cause and try again.`,
    { stack: name, output: lastLines(output) },
  );
