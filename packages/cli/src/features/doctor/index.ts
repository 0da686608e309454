import { doctorCommand } from '@appliance/doctor';
import type { Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import type { Io } from '../../framework/io.ts';

/**
 * `appliance doctor …` checks this host for the service (@appliance/doctor's `doctorCommand`):
 * the configuration is read by the service's own loader, so @appliance/api-server must be
 * installed beside the CLI, as for `serve`. Called before the options are parsed (doctor's
 * options are its own: --config, --root, --json).
 */
export async function doctor(args: string[], io: Io): Promise<number> {
  let loadConfig: typeof import('@appliance/api-server').loadConfig;
  try {
    ({ loadConfig } = await import('@appliance/api-server'));
  } catch {
    throw new UsageError(
      'appliance doctor reads the service configuration: it needs @appliance/api-server installed beside the CLI',
    );
  }
  return doctorCommand(args, io, { loadConfig });
}

/** Listed in the help; `main.run` hands `doctor` over before parsing. */
export const register: Register = (root) => {
  root
    .command('doctor')
    .description(
      'check that this host has what the service needs; each missing piece with its fix (appliance doctor --help)',
    )
    .argument('[options...]', '--config PATH --root DIR --json');
};
