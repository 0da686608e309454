/**
 * `reboot_required`: Debian's `/run/reboot-required` flag (written by the packages whose update
 * needs a reboot, naming them in `/run/reboot-required.pkgs`), or a running kernel older than the
 * newest one installed under /boot. One condition while either holds; it clears after the reboot
 * (the flag lives in /run, a tmpfs, and the new kernel then runs).
 */
import type { Condition, Observation } from '@appliance/watchers';
import { compareDebianVersions } from './debian-version.ts';

export interface RebootFacts {
  /** `/run/reboot-required` exists. */
  flagged: boolean;
  /** The packages `/run/reboot-required.pkgs` names (deduplicated, in file order). */
  packages: string[];
  /** The running kernel's release (`uname -r`), or null when unknown. */
  runningKernel: string | null;
  /** Kernel releases installed under /boot (`vmlinuz-<release>`). */
  installedKernels: string[];
}

export const REBOOT_KEY = 'reboot:required';

/** The newest of the installed kernel releases (Debian version order), or null. */
export function newestKernel(releases: readonly string[]): string | null {
  return [...releases].sort(compareDebianVersions).at(-1) ?? null;
}

export function evaluateReboot(facts: RebootFacts): Observation {
  const newest = newestKernel(facts.installedKernels);
  const kernelBehind =
    facts.runningKernel !== null && newest !== null && compareDebianVersions(facts.runningKernel, newest) < 0;
  if (!facts.flagged && !kernelBehind) return { conditions: [] };
  const names = [...new Set(facts.packages)];
  if (kernelBehind && !names.some((n) => n.startsWith('linux-image'))) names.push(`linux-image-${newest}`);
  const list = names.length > 0 ? names.join(', ') : 'an installed update (no package named)';
  const why = kernelBehind
    ? `The running kernel ${facts.runningKernel} is older than the newest installed one, ${newest}.`
    : 'Debian flagged it in /run/reboot-required.';
  const condition: Condition = {
    key: REBOOT_KEY,
    eventType: 'reboot_required',
    subject: 'this appliance',
    value: names.join(', ') || null,
    title: `A reboot is required to finish installing ${names.length === 1 ? names[0] : `${names.length} updated packages`}`,
    message: `A reboot is required to finish installing updates: ${list}. ${why} Schedule it for a quiet time (POST /system/reboot with a time, or \`appliance system reboot --at <time>\`): it waits for any array job to end.`,
  };
  return { conditions: [condition] };
}
