/**
 * Before a start: the stack's published ports that something else holds now (pure). A port a
 * container of this very stack publishes is its own (compose keeps or recreates it); a port another
 * container publishes is held by that container; any other listening socket by its process.
 */
import type { EngineContainerSummary, HostListener } from '../ports.ts';

export interface PortConflict {
  port: number;
  holder: string;
}

export function portConflicts(input: {
  stack: string;
  ports: readonly number[];
  containers: readonly EngineContainerSummary[];
  listeners: readonly HostListener[];
}): PortConflict[] {
  const own = new Set<number>();
  const others = new Map<number, EngineContainerSummary>();
  for (const c of input.containers) {
    for (const p of c.ports) {
      if (c.project === input.stack) own.add(p.published);
      else if (!others.has(p.published)) others.set(p.published, c);
    }
  }
  const out: PortConflict[] = [];
  for (const port of [...new Set(input.ports)].sort((a, b) => a - b)) {
    if (own.has(port)) continue;
    const c = others.get(port);
    if (c) {
      out.push({
        port,
        holder: c.project ? `container ${c.name} (stack ${c.project})` : `container ${c.name}`,
      });
      continue;
    }
    const l = input.listeners.find((x) => x.port === port);
    if (l) out.push({ port, holder: l.holder });
  }
  return out;
}

export const conflictSentence = (stack: string, conflicts: readonly PortConflict[]) =>
  `The stack ${stack} cannot start: ${conflicts
    .map((c) => `port ${c.port} is in use by ${c.holder}`)
    .join(
      '; ',
    )}. Stop what holds it, or change the stack's port (PUT /stacks/${stack}/values), and start again.`;
