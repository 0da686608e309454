/** The process's streams and environment (one place, so tests of helpers can pass their own). */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
}

export const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/** A person is there to answer: standard input and standard error are terminals. */
export const interactive = (io: Io): boolean => Boolean(io.stdin.isTTY && io.stderr.isTTY);
