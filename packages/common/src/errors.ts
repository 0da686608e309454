/**
 * The one error type every package throws for a refusal the client can act on.
 * `status` is the HTTP status the server answers with, `code` a stable snake_case identifier,
 * `message` a sentence that says what to do. `details` never carries a secret.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  toBody(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
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
