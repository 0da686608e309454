/** An error answer of the API: `{code, message, details?}` with its HTTP status (00 §4). */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/**
 * The service could not be reached at all: the Unix socket is missing, refuses the connection or
 * may not be opened, or the TCP address does not answer. `code` is the system error (`ENOENT`,
 * `ECONNREFUSED`, `EACCES`, …).
 */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  readonly code: string;
  readonly target: string;
  constructor(target: string, code: string, message: string) {
    super(message);
    this.code = code;
    this.target = target;
  }
}

/** The error body of a non-2xx answer (or a generic one when the body is not the API's JSON). */
export function apiErrorOf(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof body.code === 'string' && typeof body.message === 'string') {
      const details =
        body.details && typeof body.details === 'object'
          ? (body.details as Record<string, unknown>)
          : undefined;
      return new ApiError(status, body.code, body.message, details);
    }
  } catch {
    // not JSON
  }
  return new ApiError(
    status,
    'http_error',
    `The service answered HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}.`,
  );
}
