import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';

/** The service's own launcher (`bin/appliance-server` of @appliance/api-server), or null when not installed. */
export function serverLauncher(): string | null {
  try {
    return fileURLToPath(new URL('../bin/appliance-server', import.meta.resolve('@appliance/api-server')));
  } catch {
    return null;
  }
}

/**
 * `appliance serve …` runs the service: every argument goes unchanged to the api-server launcher
 * `appliance-server` (which runs it with the service's Node flags); signals are passed on and its
 * exit status is this command's. Called before the options are parsed (serve's options are the
 * service's).
 */
export async function serve(args: string[]): Promise<number> {
  const launcher = serverLauncher();
  if (!launcher)
    throw new UsageError(
      'appliance serve needs the service package @appliance/api-server installed beside the CLI',
    );
  const child = spawn(launcher, args, { stdio: 'inherit' });
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, () => child.kill(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        resolve(code ?? (signal === 'SIGTERM' ? 143 : signal === 'SIGINT' ? 130 : 1)),
      );
    });
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
  }
}

/** Listed in the help; `main.run` hands `serve` over before parsing. */
export const register: Register = (root) => {
  root
    .command('serve')
    .description('run the service (needs @appliance/api-server on this machine; appliance serve --help)')
    .argument('[options...]', '--config PATH --root DIR --listen HOST:PORT --socket PATH --lab');
};
