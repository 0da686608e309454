/**
 * Request and response types of every route, read off the generated `paths` (openapi-typescript
 * output of the server's OpenAPI document). Paths are written without the `/api/v1` prefix and
 * with `{param}` placeholders, as in the document: `client.get('/shares/{name}', {params: {name}})`.
 */
import type { components, operations, paths } from './generated/openapi.ts';

export type { components, operations, paths };

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Full = keyof paths;
type Strip<K> = K extends `/api/v1${infer R}` ? R : never;

/** Every API path (without `/api/v1`) that has an operation for `M`. */
export type PathsWith<M extends Method> = {
  [K in Full]: [NonNullable<paths[K][M]>] extends [never] ? never : Strip<K>;
}[Full];

/** The operation object of `M path`. */
export type Operation<M extends Method, P extends PathsWith<M>> = NonNullable<paths[`/api/v1${P}`][M]>;

type PathParamsOf<O> = O extends { parameters: { path: infer X } } ? X : never;
type QueryOf<O> = O extends { parameters: { query?: infer X } } ? X : never;
type JsonBodyOf<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : O extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : never;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
/** The JSON body of the operation's 2xx answer (`undefined` for 204). */
export type Success<O> = O extends { responses: infer R }
  ? {
      [S in keyof R]: S extends SuccessStatus
        ? R[S] extends { content: { 'application/json': infer J } }
          ? J
          : undefined
        : never;
    }[keyof R]
  : never;

/** Shared per-request options. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

type ParamsPart<O> = [PathParamsOf<O>] extends [never]
  ? { params?: undefined }
  : { params: { [K in keyof PathParamsOf<O>]: string } };
type QueryPart<O> = [QueryOf<O>] extends [never] ? { query?: undefined } : { query?: QueryOf<O> };
type BodyPart<O> = [JsonBodyOf<O>] extends [never]
  ? { body?: undefined }
  : undefined extends JsonBodyOf<O>
    ? { body?: JsonBodyOf<O> }
    : { body: JsonBodyOf<O> };

/** What a call of `M path` takes: path parameters, query, JSON body, signal, extra headers. */
export type RequestInit<O> = ParamsPart<O> & QueryPart<O> & BodyPart<O> & CallOptions;

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
/** The init argument is optional when nothing in it is required. */
export type InitArgs<O> = [RequiredKeys<RequestInit<O>>] extends [never]
  ? [init?: RequestInit<O>]
  : [init: RequestInit<O>];

/** A JSON schema of the document's components (e.g. `Schema<'Error'>`). */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** Shorthand: the 2xx body of `M path`. */
export type ResponseOf<M extends Method, P extends PathsWith<M>> = Success<Operation<M, P>>;
/** Shorthand: the JSON body of `M path`. */
export type BodyOf<M extends Method, P extends PathsWith<M>> = NonNullable<JsonBodyOf<Operation<M, P>>>;

/** The typed JSON calls both clients share: each resolves with the 2xx JSON answer (`undefined` for 204). */
export interface JsonCalls {
  /** `GET path` → the answer's JSON. Throws `ApiError` for an error answer. */
  get<P extends PathsWith<'get'>>(
    path: P,
    ...init: InitArgs<Operation<'get', P>>
  ): Promise<Success<Operation<'get', P>>>;
  post<P extends PathsWith<'post'>>(
    path: P,
    ...init: InitArgs<Operation<'post', P>>
  ): Promise<Success<Operation<'post', P>>>;
  put<P extends PathsWith<'put'>>(
    path: P,
    ...init: InitArgs<Operation<'put', P>>
  ): Promise<Success<Operation<'put', P>>>;
  patch<P extends PathsWith<'patch'>>(
    path: P,
    ...init: InitArgs<Operation<'patch', P>>
  ): Promise<Success<Operation<'patch', P>>>;
  delete<P extends PathsWith<'delete'>>(
    path: P,
    ...init: InitArgs<Operation<'delete', P>>
  ): Promise<Success<Operation<'delete', P>>>;
}
