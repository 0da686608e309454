/**
 * The parts of a plan and how a snapshot says which part it holds. One run makes one restic
 * snapshot per part (the configuration archive, each stack's app data, each share), so each can be
 * restored, kept and drilled on its own. A snapshot carries the tags `appliance`, `plan:<plan>`
 * and its part (`config`, `stack:<name>`, `share:<name>`); an app-data snapshot also carries one
 * `path:<logical folder>` per folder it holds (commas and `%` percent-encoded: restic splits tag
 * lists on commas).
 */
import type { BackupPlan } from './plan.ts';

export type Part =
  | { kind: 'config' }
  | { kind: 'stack'; name: string; keepRunning: boolean }
  | { kind: 'share'; name: string };

/** A part as a snapshot names it (no options). */
export type PartRef = { kind: 'config' } | { kind: 'stack' | 'share'; name: string };

export const APPLIANCE_TAG = 'appliance';

/** `config`, `stack:web`, `share:media`: the tag of the part and its key in results. */
export const partKey = (p: PartRef): string => (p.kind === 'config' ? 'config' : `${p.kind}:${p.name}`);

/** "the configuration", "stack web", "share media". */
export const partLabel = (p: PartRef): string =>
  p.kind === 'config' ? 'the configuration' : `${p.kind} ${p.name}`;

/** The parts of a plan in the order a run backs them up: configuration, stacks, shares. */
export function partsOf(plan: Pick<BackupPlan, 'configuration' | 'stacks' | 'shares'>): Part[] {
  return [
    ...(plan.configuration ? [{ kind: 'config' } as const] : []),
    ...plan.stacks.map((s) => ({ kind: 'stack' as const, name: s.name, keepRunning: s.keepRunning })),
    ...plan.shares.map((name) => ({ kind: 'share' as const, name })),
  ];
}

export const encodeTagValue = (v: string): string => v.replaceAll('%', '%25').replaceAll(',', '%2C');
export const decodeTagValue = (v: string): string => v.replaceAll('%2C', ',').replaceAll('%25', '%');

/** The tags of a part's snapshot. `roots`: the logical folders an app-data snapshot holds. */
export function snapshotTags(plan: string, part: PartRef, roots: readonly string[] = []): string[] {
  return [APPLIANCE_TAG, `plan:${plan}`, partKey(part), ...roots.map((r) => `path:${encodeTagValue(r)}`)];
}

/** The part a snapshot holds, from its tags (null: not one of ours). */
export function partOfTags(tags: readonly string[] | null | undefined): PartRef | null {
  for (const t of tags ?? []) {
    if (t === 'config') return { kind: 'config' };
    const m = /^(stack|share):(.+)$/.exec(t);
    if (m) return { kind: m[1] as 'stack' | 'share', name: m[2] as string };
  }
  return null;
}

/** The logical folders an app-data snapshot holds (its `path:` tags). */
export function rootsOfTags(tags: readonly string[] | null | undefined): string[] {
  return (tags ?? []).filter((t) => t.startsWith('path:')).map((t) => decodeTagValue(t.slice(5)));
}
