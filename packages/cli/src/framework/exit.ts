/** Exit status of every command (08 §15). */
export const EXIT = { ok: 0, apiError: 1, usage: 2, unreachable: 3, interrupted: 130 } as const;

/** Wrong or missing arguments, or a question that cannot be asked: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A refusal decided by the CLI itself, printed like the API's (`<code>: <message>`) with exit 1:
 * a typed confirmation that does not match, a name that resolves to nothing.
 */
export class Refusal extends Error {
  override name = 'Refusal';
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export const EXIT_HELP = `Exit status:
  0  success
  1  the API answered an error (printed as "<code>: <message>" on stderr), or a typed
     confirmation did not match (nothing was sent)
  2  usage error: unknown command or option, a missing argument, or a confirmation that cannot
     be asked (no terminal and no --confirm)
  3  the service cannot be reached: socket missing, unreachable or permission denied (or the
     --url address does not answer, or its certificate is not trusted)
130  interrupted (Ctrl-C): a running operation goes on in the service`;
