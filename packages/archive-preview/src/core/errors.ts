import { AppError } from '@appliance/common';
import { LIMITS } from './limits.ts';

/** `400 invalid_archive`, naming the entry at fault when there is one (01 §3). */
export function invalidArchive(reason: string, entry?: string): AppError {
  return new AppError(
    400,
    'invalid_archive',
    `The uploaded file is not a valid configuration archive: ${reason}. Upload an archive made by "Export configuration" (a .tar.zst file), unmodified.`,
    entry === undefined ? undefined : { entry },
  );
}

/** `413 archive_too_large` with the limit that was exceeded. */
export function archiveTooLarge(what: string, limitBytes: number): AppError {
  return new AppError(
    413,
    'archive_too_large',
    `The archive is too large: ${what} exceeds the limit of ${limitBytes} bytes. Upload an archive made by "Export configuration"; large files do not belong in the configuration.`,
    { limitBytes },
  );
}

export const PASSPHRASE_INCORRECT_MESSAGE =
  "The passphrase does not open the archive's secrets.age or identity.age.";

export function backupPassphraseIncorrect(): AppError {
  return new AppError(400, 'backup_passphrase_incorrect', PASSPHRASE_INCORRECT_MESSAGE);
}

export const isTooLarge = (err: unknown): boolean =>
  err instanceof AppError && err.code === 'archive_too_large';

export { LIMITS };
