/**
 * A refusal an operation's core returns or throws: a stable snake_case `code`, a sentence that says
 * what to do (`message`), and `details` that never carry a secret. It names no transport: which
 * HTTP status a code gets is the server's one error map (api-server `http/refusal-status.ts`), and
 * the CLI prints the sentence. Packages throw this; `AppError` below is the server's own kind.
 */
export class Refusal extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'Refusal';
    this.code = code;
    this.details = details;
  }

  toBody(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** A refusal (see `Refusal`): a code, a sentence, details; the transport decides the status. */
export const refuse = (code: string, message: string, details?: Record<string, unknown>): Refusal =>
  new Refusal(code, message, details);

export function isRefusal(value: unknown): value is Refusal {
  return value instanceof Refusal;
}

/**
 * A refusal that carries its HTTP status (the older form, still thrown across the project).
 * `status` is the HTTP status the server answers with, `code` a stable snake_case identifier,
 * `message` a sentence that says what to do. `details` never carries a secret. New package code
 * throws `Refusal` and adds its code to the server's error map instead.
 */
export class AppError extends Refusal {
  readonly status: number;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'AppError';
    this.status = status;
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export const badRequest = (issues: ValidationIssue[], message?: string): AppError =>
  new AppError(
    400,
    'bad_request',
    message ??
      `The request is not valid: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
    { issues },
  );

export const notFound = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(404, code, message, details);

export const conflict = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(409, code, message, details);

export const notConfigured = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError(501, 'not_configured', message, details);

/**
 * The client closed the connection before its request body was complete (an upload cut off). No
 * answer can reach it; the server logs it at info as what it is, never as a failure.
 */
export const clientDisconnected = (): AppError =>
  new AppError(
    400,
    'client_disconnected',
    'The connection closed before the request body was complete; send the whole request again.',
  );

/** The typed confirmation did not match: answers 409 with the exact expected text. */
export const confirmationRequired = (expected: string): AppError =>
  new AppError(409, 'confirmation_required', `Type the confirmation exactly as shown: ${expected}`, {
    expected,
  });
