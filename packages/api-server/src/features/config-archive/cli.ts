import type { CliCommand } from '../../cli/main.ts';

/** `appliance config export` (filled in by the config-archive feature). */
export const cliCommand: CliCommand | null = null;
