import type { HttpDelivery } from '../core/delivery-request.ts';

export type SendResult = { success: true } | { success: false; error: string };

/** The injected HTTP client: `globalThis.fetch` in production, anything fetch-shaped in tests. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Perform one HTTP delivery: redirects are not followed, any 2xx is success, `timeoutMs` bounds the
 * whole attempt. Error texts are short and never name the URL (a Discord URL is a secret).
 */
export async function sendHttp(
  request: HttpDelivery,
  fetch: FetchLike,
  timeoutMs: number,
): Promise<SendResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    return { success: false, error: describeFetchError(error, signal, timeoutMs) };
  }
  // Free the connection; the body is not used.
  await response.body?.cancel().catch(() => {});
  if (response.status >= 200 && response.status < 300) return { success: true };
  if (response.status >= 300 && response.status < 400) {
    return {
      success: false,
      error: `HTTP ${response.status} redirect from the endpoint (redirects are not followed)`,
    };
  }
  if (response.type === 'opaqueredirect') {
    return { success: false, error: 'redirect from the endpoint (redirects are not followed)' };
  }
  return { success: false, error: `HTTP ${response.status} from the endpoint` };
}

function describeFetchError(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  if (code === 'ECONNREFUSED') return 'connection refused by the endpoint';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the endpoint host name does not resolve';
  if (code) return `could not reach the endpoint (${code})`;
  return 'could not reach the endpoint';
}
