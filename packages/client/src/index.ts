export { createClient, resolvePath, type ApplianceClient, type Download, type UploadPart } from './client.ts';
export { ApiError, ConnectionError } from './errors.ts';
export {
  parseSse,
  type EventStream,
  type NotificationEvent,
  type ProgressEvent,
  type ServerEvent,
} from './events.ts';
export { API_PREFIX, DEFAULT_SOCKET, type ClientOptions } from './transport.ts';
export type {
  BodyOf,
  CallOptions,
  Method,
  Operation,
  PathsWith,
  RequestInit,
  ResponseOf,
  Schema,
  Success,
  components,
  operations,
  paths,
} from './types.ts';
