import type { CliCommand } from '../cli/main.ts';
import { cliCommand as configExport } from './config-archive/cli.ts';
import { importCliCommand as configImport } from './config-archive/import-cli.ts';

/** Client subcommands contributed by features (registered in the `appliance` CLI). */
export const cliCommands: CliCommand[] = [configExport, configImport].filter(
  (c): c is CliCommand => c !== null,
);
