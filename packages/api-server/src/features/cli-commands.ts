import type { CliCommand } from '../cli/main.ts';
import { cliCommand as configExport } from './config-archive/cli.ts';

/**
 * Client subcommands contributed by features (registered in the service's own `appliance` CLI).
 * The operator's commands, `config import` among them, live in `@appliance/cli`.
 */
export const cliCommands: CliCommand[] = [configExport].filter((c): c is CliCommand => c !== null);
