/** The reading limits of 01 §3 and §4.4, in bytes unless named otherwise. */
export const MiB = 1024 * 1024;

export const LIMITS = {
  /** Rule 1: the `archive` part; exactly this many bytes passes. */
  archiveBytes: 512 * MiB,
  /** Rule 2: regular-file sizes declared in tar headers, summed. */
  declaredBytes: 512 * MiB,
  /** Rule 3: the decompressed tar stream. */
  decompressedBytes: 576 * MiB,
  /** Rule 3: entries (files and directories) in the tar stream. */
  entries: 100_000,
  /** Rule 8. */
  manifestBytes: 16 * MiB,
  ageFileBytes: 32 * MiB,
  /** Rule 6: entry names, in UTF-8 bytes. */
  nameBytes: 1024,
  /** Rule 4: no zstd frame window over 16 MiB. */
  zstdWindowLogMax: 24,
  /** §4.4 step 1: the whole request body (the archive plus the multipart framing and passphrase). */
  bodyBytes: 512 * MiB + MiB,
} as const;

/** Stack names (02 §3): the directory names under the stacks root that are archived. */
export const STACK_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const isStackName = (name: string): boolean => STACK_NAME.test(name);
