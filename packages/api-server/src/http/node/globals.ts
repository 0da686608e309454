/**
 * Puts the light Fetch classes in place of the global `Request`, `Response` and `Headers`, so that
 * Hono builds its answers with them (context.js calls `new Response()` and `new Headers()`).
 *
 * Node 24 defines those three globals as lazy properties that load undici when they are first read
 * (and when their descriptor is read); assigning them does not. So the service's entry imports
 * `install-globals.ts` before anything else, and undici (with node:tls and node:http2) loads only if
 * something calls `fetch()`, which has its own classes. docs/decisions/performance.md, "The web
 * globals", says what that saves and what the light classes leave out (FormData bodies).
 */
import { LightHeaders } from './headers.ts';
import { LightRequest } from './request.ts';
import { LightResponse } from './response.ts';

export function installLightGlobals(target: typeof globalThis = globalThis): void {
  const g = target as unknown as Record<string, unknown>;
  g.Headers = LightHeaders;
  g.Request = LightRequest;
  g.Response = LightResponse;
}
