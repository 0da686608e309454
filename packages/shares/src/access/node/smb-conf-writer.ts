/**
 * Writing and validating `smb.conf` (06 §5.2): skip identical bytes, write a fsynced candidate in the
 * same directory (0644), validate it with the real `testparm -s`, rename it over the file, fsync the
 * directory. Any failure leaves the previous file in place and removes the candidate.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, type CommandRunner, fsyncDir } from '@appliance/common';
import { smbConfStructureKey } from '../core/render-smb-conf.ts';
import { smbRegenerationFailed } from '../errors.ts';

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
  const handle = await fs.open(file, 'wx', 0o644);
  try {
    await handle.writeFile(text);
    await handle.chmod(0o644);
    await handle.sync();
  } finally {
    await handle.close();
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
      const current = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw failed('write_failed', 'reading the current smb.conf', err);
      });
      if (current === text) return 'unchanged';

      const candidate = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.candidate`);
      try {
        try {
          await fs.mkdir(dir, { recursive: true, mode: 0o755 });
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
          await fs.rename(candidate, file);
          await fsyncDir(dir);
        } catch (err) {
          throw failed('write_failed', `renaming the candidate over ${file}`, err);
        }
        return 'written';
      } catch (err) {
        await fs.rm(candidate, { force: true }).catch(() => undefined);
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
