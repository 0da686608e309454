/** The appliance's host name (the settings' `hostname`): what a valid one is, and the default one. */
import os from 'node:os';

const HOST_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Every dot-separated label is lowercase letters, digits and inner hyphens (1–63 characters). */
export const hostnameLabelsValid = (h: string): boolean => h.split('.').every((l) => HOST_LABEL.test(l));

/** A host name the settings accept: 1–253 characters of valid labels. */
export const isHostname = (h: string): boolean => h.length >= 1 && h.length <= 253 && hostnameLabelsValid(h);

/** The name of a new installation: the machine's own, lowercased, when valid; else `appliance`. */
export function defaultHostname(machine: string = os.hostname()): string {
  const h = machine.toLowerCase();
  return isHostname(h) ? h : 'appliance';
}
