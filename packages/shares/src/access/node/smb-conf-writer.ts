/**
 * Writing and validating `smb.conf` (06 §5.2): skip identical bytes, write a fsynced candidate in the
 * same directory (0644), validate it with the real `testparm -s`, rename it over the file, fsync the
 * directory. Any failure leaves the previous file in place and removes the candidate.
 *
 * This runs once per coalesced regeneration, on the hot path of 06 §8, so the small steps (reading
 * a ~3 KiB file, creating and writing the candidate, the rename) are synchronous calls — each takes
 * microseconds on a page-cached file, less than one thread-pool round trip — and only the two
 * fsyncs (the candidate, then the directory) go to the thread pool.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppError, type CommandRunner, fsyncDir } from '@appliance/common';
import { smbConfStructureKey } from '../core/render-smb-conf.ts';
import { smbRegenerationFailed } from '../errors.ts';

const fsync = promisify(fs.fsync);

export interface SmbConfWriterOptions {
  /** Host path of smb.conf (`HostPaths.sambaConf`). */
  file: string;
  runner: CommandRunner;
  /** testparm timeout; default 30 s. */
  timeoutMs?: number;
  /** Receives the cause of a failure (the client only gets the reason). */
  log?: (message: string, cause?: unknown) => void;
}

export type SmbConfWriteOutcome = 'unchanged' | 'written';

export interface SmbConfWriter {
  write(text: string): Promise<SmbConfWriteOutcome>;
}

const VALIDATION_MARKER = 'Unknown parameter encountered';

/**
 * The temporary file of 06 §5.2 step 2: created exclusively (0644), written, fsynced. It becomes
 * smb.conf by one rename after validation (step 4), so the sequence is `writeFileAtomic`'s with the
 * validation between its fsync and its rename.
 */
async function writeCandidate(file: string, text: string): Promise<void> {
  const fd = fs.openSync(file, 'wx', 0o644);
  try {
    fs.writeFileSync(fd, text);
    fs.fchmodSync(fd, 0o644);
    await fsync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function readCurrent(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function createSmbConfWriter(options: SmbConfWriterOptions): SmbConfWriter {
  const { file, runner } = options;
  const dir = path.dirname(file);
  const log = options.log ?? (() => undefined);
  /** Structure key of the last file testparm accepted in this process. */
  let acceptedKey: string | null = null;

  const validate = async (candidate: string): Promise<void> => {
    let result: Awaited<ReturnType<CommandRunner['run']>>;
    try {
      result = await runner.run('testparm', ['-s', candidate], { timeoutMs: options.timeoutMs ?? 30_000 });
    } catch (err) {
      // testparm not installed: validation is skipped (06 §5.2 step 3, "if testparm is installed").
      if (err instanceof AppError && err.status === 501) return;
      throw err;
    }
    if (result.exitCode !== 0 || result.timedOut || result.stderr.includes(VALIDATION_MARKER)) {
      log(`testparm refused the generated smb.conf: ${result.stderr.trim().slice(0, 2000)}`);
      throw smbRegenerationFailed('validation_failed');
    }
  };

  return {
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
        try {
          fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
          await writeCandidate(candidate, text);
        } catch (err) {
          throw failed('write_failed', `writing ${candidate}`, err);
        }
        const key = smbConfStructureKey(text);
        if (key !== acceptedKey) {
          await validate(candidate);
          acceptedKey = key;
        }
        try {
          fs.renameSync(candidate, file);
          await fsyncDir(dir);
        } catch (err) {
          throw failed('write_failed', `renaming the candidate over ${file}`, err);
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
