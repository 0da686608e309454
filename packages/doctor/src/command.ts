/**
 * `appliance doctor [--config PATH] [--root DIR] [--json]`: loads the configuration the way the
 * service does (the caller injects the service's loader), probes the host, prints the report and
 * returns the exit code: 0 nothing required failed (warnings allowed), 1 a required check failed,
 * 2 usage error.
 */
import { parseArgs } from 'node:util';
import { evaluate } from './core/checks.ts';
import { DOCTOR_EXIT, exitCodeOf, jsonReport, textReport } from './core/report.ts';
import { type DoctorConfig, type LoadedConfig, type Probes, gatherFacts } from './gather.ts';
import { createRealProbes } from './node/probes.ts';

export interface DoctorIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export interface DoctorDeps {
  /**
   * The service's configuration loader (api-server's `loadConfig`): the file, then APPLIANCE_*
   * variables, then these flags. It throws with a sentence when the configuration is invalid.
   */
  loadConfig(flags: { config?: string; root?: string }, env: NodeJS.ProcessEnv): DoctorConfig;
  /** Default: the real probes over io.env (PATH, DOCKER_HOST). */
  probes?: Probes;
  now?: () => Date;
}

export const DOCTOR_HELP = `appliance doctor [--config PATH] [--root DIR] [--json]
  Checks that this host has what the service needs: the disk tools (blkid, wipefs, findmnt, mount,
  parted, mkfs.*), mergerfs, snapraid, Samba's tools, Docker Engine and Compose (only for apps),
  the socket group, the TLS certificate and key, Node, and free space for the state directory.
  Prints one line per check and, under each problem, the Debian package or the step that fixes it.
  Run it as root, with the service's configuration (--config / --root as for \`appliance serve\`).
  --json prints the verdicts as JSON ({ ok, failed, warnings, checks: [...] }).
  Exit status: 0 nothing required is missing (warnings allowed), 1 a required check failed,
  2 usage error. Optional checks (Docker, Compose, exFAT/btrfs/ext4/FAT tools, testparm, smbd,
  lsblk, age, the socket group) only warn.`;

export async function doctorCommand(
  argv: readonly string[],
  io: DoctorIo,
  deps: DoctorDeps,
): Promise<number> {
  let values: { config?: string; root?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        root: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.stderr.write(`usage error: ${(err as Error).message}\n\n${DOCTOR_HELP}\n`);
    return DOCTOR_EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(`${DOCTOR_HELP}\n`);
    return DOCTOR_EXIT.ok;
  }
  const flags = {
    ...(values.config !== undefined ? { config: values.config } : {}),
    ...(values.root !== undefined ? { root: values.root } : {}),
  };
  let config: DoctorConfig | null = null;
  let configError: string | null = null;
  try {
    config = deps.loadConfig(flags, io.env);
  } catch (err) {
    configError = (err as Error).message;
  }
  // the tools are looked up where the service looks them up (its configured tool path)
  const probes =
    deps.probes ??
    createRealProbes({
      env: config?.toolPath ? { ...io.env, APPLIANCE_TOOL_PATH: config.toolPath } : io.env,
    });
  const loaded: LoadedConfig = config
    ? { ok: true, config, exists: await probes.exists(config.configFile) }
    : { ok: false, error: configError ?? 'unknown error', file: flags.config ?? null };
  const facts = await gatherFacts(loaded, probes);
  const verdicts = evaluate(facts, { now: deps.now?.() ?? new Date() });
  const header = {
    configFile: loaded.ok ? loaded.config.configFile : loaded.file,
    root: loaded.ok ? loaded.config.root : (flags.root ?? ''),
  };
  io.stdout.write(
    values.json ? `${JSON.stringify(jsonReport(verdicts, header), null, 2)}\n` : textReport(verdicts, header),
  );
  return exitCodeOf(verdicts);
}
