/**
 * Writing and validating `smb.conf` (06 §5.2): skip identical bytes, write a fsynced candidate in the
 * same directory (0644), validate it with the real `testparm -s`, rename it over the file, fsync the
 * directory. Any failure leaves the previous file in place and removes the candidate.
 *
 * This runs once per coalesced regeneration, on the hot path of 06 §8: every request waits for a
 * regeneration that started after its commit, so the length of one regeneration bounds the
 * throughput of the permission PUTs. The file steps therefore run off the event loop as few jobs as
 * possible: with the native addon (@appliance/fs-at) create + write + fchmod + fsync + close (and,
 * when testparm need not run, rename + directory fsync too) are ONE thread-pool job — on the event
 * loop, create and rename wait for the filesystem journal while other fsyncs commit (≈0.3 ms each
 * here), and each awaited step waits for the loop to finish the requests it is serving. Without the
 * addon the same steps run through node:fs (small steps synchronous, the fsyncs on the pool).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppError, type CommandRunner, fsyncDir } from '@appliance/common';
import { fsAtAddonPath, loadFsAt } from '@appliance/fs-at';
import { smbConfStructureKey } from '../core/render-smb-conf.ts';
import { smbRegenerationFailed } from '../errors.ts';

const fsync = promisify(fs.fsync);

/** The two durable file steps of 06 §5.2 (2 and 4). */
export interface DurableFiles {
  /**
   * Step 2: create `candidate` exclusively (0644), write `text`, fsync it; with `renameTo`, step 4 as
   * well: rename it over `renameTo` and fsync the directory.
   */
  writeCandidate(candidate: string, text: string, renameTo: string | null): Promise<void>;
  /** Step 4: rename `candidate` over `file`, fsync the directory. */
  install(candidate: string, file: string): Promise<void>;
  readonly kind: 'native' | 'js';
}

/** Through node:fs: small steps synchronous, the two fsyncs on the thread pool. */
export const jsDurableFiles: DurableFiles = {
  kind: 'js',
  async writeCandidate(candidate, text, renameTo) {
    const fd = fs.openSync(candidate, 'wx', 0o644);
    try {
      fs.writeFileSync(fd, text);
      fs.fchmodSync(fd, 0o644);
      await fsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (renameTo !== null) await jsDurableFiles.install(candidate, renameTo);
  },
  async install(candidate, file) {
    fs.renameSync(candidate, file);
    await fsyncDir(path.dirname(file));
  },
};

/** Through the native addon: one thread-pool job per call. Null when the addon is not built here. */
export function nativeDurableFiles(): DurableFiles | null {
  const addon = fsAtAddonPath();
  if (addon === null) return null;
  const at = loadFsAt(addon);
  return {
    kind: 'native',
    writeCandidate: (candidate, text, renameTo) =>
      at.writeFileDurable(candidate, Buffer.from(text), renameTo),
    install: (candidate, file) => at.renameDurable(candidate, file),
  };
}

export interface SmbConfWriterOptions {
  /** Host path of smb.conf (`HostPaths.sambaConf`). */
  file: string;
  runner: CommandRunner;
  /** testparm timeout; default 30 s. */
  timeoutMs?: number;
  /** Receives the cause of a failure (the client only gets the reason). */
  log?: (message: string, cause?: unknown) => void;
  /** `false`: the node:fs steps even when the native addon is built (tests run both). */
  native?: boolean;
}

export type SmbConfWriteOutcome = 'unchanged' | 'written';

export interface SmbConfWriter {
  write(text: string): Promise<SmbConfWriteOutcome>;
  /** Which file steps this writer uses. */
  readonly files: 'native' | 'js';
}

const VALIDATION_MARKER = 'Unknown parameter encountered';

function readCurrent(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * `testparm -s` on a candidate file (06 §5.2 step 3): a non-zero exit, a timeout or an unknown
 * parameter is `500 smb_regeneration_failed` (validation_failed). Skipped when testparm is not
 * installed. Also used by the config import, which validates its smb.conf before swapping it in.
 */
export async function validateSmbConf(
  runner: CommandRunner,
  candidate: string,
  options: { timeoutMs?: number; log?: (message: string, cause?: unknown) => void } = {},
): Promise<void> {
  let result: Awaited<ReturnType<CommandRunner['run']>>;
  try {
    result = await runner.run('testparm', ['-s', candidate], { timeoutMs: options.timeoutMs ?? 30_000 });
  } catch (err) {
    // testparm not installed: validation is skipped (06 §5.2 step 3, "if testparm is installed").
    if (err instanceof AppError && err.status === 501) return;
    throw err;
  }
  if (result.exitCode !== 0 || result.timedOut || result.stderr.includes(VALIDATION_MARKER)) {
    options.log?.(`testparm refused the generated smb.conf: ${testparmReason(result)}`);
    throw smbRegenerationFailed('validation_failed');
  }
}

/**
 * Why testparm refused a file, for the log: what it said on stderr (else stdout), and always how
 * it ended — a refusal with no output still says its exit status, a timeout says so.
 */
export function testparmReason(r: {
  exitCode: number;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}): string {
  const ended = r.timedOut ? 'timed out' : `exit status ${r.exitCode}`;
  const said = (r.stderr.trim() || r.stdout.trim()).slice(0, 2000);
  return said ? `${said} (${ended})` : `${ended}, no output`;
}

export function createSmbConfWriter(options: SmbConfWriterOptions): SmbConfWriter {
  const { file, runner } = options;
  const dir = path.dirname(file);
  const log = options.log ?? (() => undefined);
  const files = (options.native === false ? null : nativeDurableFiles()) ?? jsDurableFiles;
  /** Structure key of the last file testparm accepted in this process. */
  let acceptedKey: string | null = null;

  const validate = (candidate: string) =>
    validateSmbConf(runner, candidate, {
      log,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });

  return {
    files: files.kind,
    async write(text) {
      let current: string | null;
      try {
        current = readCurrent(file);
      } catch (err) {
        throw failed('write_failed', 'reading the current smb.conf', err);
      }
      if (current === text) return 'unchanged';

      const candidate = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.candidate`);
      try {
        const key = smbConfStructureKey(text);
        // testparm runs only for a new structure; otherwise writing and installing are one job.
        const validated = key === acceptedKey;
        try {
          fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
          await files.writeCandidate(candidate, text, validated ? file : null);
        } catch (err) {
          throw failed('write_failed', `writing ${candidate}${validated ? ` over ${file}` : ''}`, err);
        }
        if (!validated) {
          await validate(candidate);
          acceptedKey = key;
          try {
            await files.install(candidate, file);
          } catch (err) {
            throw failed('write_failed', `renaming the candidate over ${file}`, err);
          }
        }
        return 'written';
      } catch (err) {
        fs.rmSync(candidate, { force: true });
        if (err instanceof AppError) throw err;
        throw failed('write_failed', 'regenerating (unexpected error)', err);
      }
    },
  };

  function failed(reason: 'write_failed', what: string, cause: unknown): AppError {
    log(`smb.conf regeneration failed while ${what}`, cause);
    return smbRegenerationFailed(reason);
  }
}
