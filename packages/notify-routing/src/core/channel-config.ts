/**
 * Channel configuration (08 §7.1) as valibot schemas the routes use directly. Schemas carry no
 * transformations (so the OpenAPI document can be generated from them); normalisation (trimming the
 * name) happens in channels.ts.
 */
import * as v from 'valibot';

export const CHANNEL_TYPES = ['webhook', 'ntfy', 'gotify', 'discord', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const MAX_URL_LENGTH = 2048;
export const MAX_HEADER_VALUE_LENGTH = 1024;
export const MAX_WEBHOOK_HEADERS = 20;
export const MAX_EMAIL_RECIPIENTS = 10;
export const MAX_SECRET_LENGTH = 4096;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const NTFY_TOPIC = /^[A-Za-z0-9_-]{1,64}$/;
const HOST_LABELS =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Headers the service sets itself (or the HTTP stack owns): a channel may not set them. */
export const RESERVED_HEADER_NAMES = [
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
];

/** `http:` or `https:`, ≤ 2,048 characters, no user-info (08 §7.1). */
export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
  );
}

export const HttpUrlSchema = v.pipe(
  v.string('must be a URL string'),
  v.maxLength(MAX_URL_LENGTH, `a URL may have at most ${MAX_URL_LENGTH} characters`),
  v.check(isHttpUrl, 'must be an http: or https: URL without user name or password'),
);

export const HeaderNameSchema = v.pipe(
  v.string('a header name must be a string'),
  v.regex(HEADER_NAME, "a header name is 1–64 token characters (letters, digits and !#$%&'*+.^_`|~-)"),
);

/** A header value: ≤ 1,024 characters, no CR, LF or NUL. */
export const HeaderValueSchema = v.pipe(
  v.string('a header value must be a string'),
  v.maxLength(
    MAX_HEADER_VALUE_LENGTH,
    `a header value may have at most ${MAX_HEADER_VALUE_LENGTH} characters`,
  ),
  v.regex(/^[^\r\n\0]*$/, 'a header value may not contain line breaks or NUL characters'),
);

const nonEmptyHeaderValue = v.pipe(
  HeaderValueSchema,
  v.minLength(1, 'must not be empty; send null to clear'),
);

const notReserved = (name: string) => !RESERVED_HEADER_NAMES.includes(name.toLowerCase());

export const WebhookHeadersSchema = v.pipe(
  v.record(
    v.pipe(
      HeaderNameSchema,
      v.check(notReserved, `the service sets ${RESERVED_HEADER_NAMES.join(', ')} itself`),
    ),
    HeaderValueSchema,
    'webhookHeaders must be an object of header names to string values',
  ),
  v.maxEntries(MAX_WEBHOOK_HEADERS, `webhookHeaders may hold at most ${MAX_WEBHOOK_HEADERS} headers`),
);

export const EmailAddressSchema = v.pipe(
  v.string('must be an e-mail address'),
  v.email('must be an e-mail address'),
);

export const EmailHostSchema = v.pipe(
  v.string('emailHost must be a host name or IP address'),
  v.check(
    (h) => HOST_LABELS.test(h) || v.is(v.pipe(v.string(), v.ip()), h),
    'emailHost must be a host name or IP address',
  ),
);

/** Fields every channel body has; `secret`: omitted = keep (update) / none (create), null = clear. */
const common = {
  name: v.pipe(
    v.string('name must be a string'),
    v.check((s) => s.trim().length >= 1, 'name must not be empty'),
    v.check((s) => s.trim().length <= 128, 'name may have at most 128 characters'),
  ),
  enabled: v.optional(v.boolean('enabled must be true or false'), true),
};

const secretOf = <S extends v.GenericSchema<string, string>>(schema: S) => v.optional(v.nullable(schema));

const headerSecret = secretOf(nonEmptyHeaderValue);

export const WebhookChannelSchema = v.strictObject({
  ...common,
  type: v.literal('webhook'),
  secret: headerSecret,
  webhookUrl: HttpUrlSchema,
  webhookMethod: v.optional(v.picklist(['POST', 'PUT'], 'webhookMethod must be POST or PUT'), 'POST'),
  webhookHeaders: v.optional(WebhookHeadersSchema),
  webhookAuthHeaderName: v.optional(
    v.pipe(HeaderNameSchema, v.check(notReserved, 'choose a header the service does not set itself')),
  ),
});

export const NtfyChannelSchema = v.strictObject({
  ...common,
  type: v.literal('ntfy'),
  secret: headerSecret,
  ntfyUrl: HttpUrlSchema,
  ntfyTopic: v.pipe(
    v.string('ntfyTopic must be a string'),
    v.regex(NTFY_TOPIC, 'ntfyTopic is 1–64 letters, digits, _ or -'),
  ),
});

export const GotifyChannelSchema = v.strictObject({
  ...common,
  type: v.literal('gotify'),
  secret: headerSecret,
  gotifyUrl: HttpUrlSchema,
});

export const DiscordChannelSchema = v.strictObject({
  ...common,
  type: v.literal('discord'),
  /** The Discord webhook URL is the secret. */
  secret: secretOf(HttpUrlSchema),
});

export const EmailChannelSchema = v.strictObject({
  ...common,
  type: v.literal('email'),
  secret: secretOf(
    v.pipe(
      v.string('the SMTP password must be a string'),
      v.minLength(1, 'must not be empty; send null to clear'),
      v.maxLength(MAX_HEADER_VALUE_LENGTH, `at most ${MAX_HEADER_VALUE_LENGTH} characters`),
    ),
  ),
  emailHost: EmailHostSchema,
  emailPort: v.pipe(
    v.number('emailPort must be a number'),
    v.integer('emailPort must be an integer'),
    v.minValue(1, 'emailPort must be 1–65535'),
    v.maxValue(65535, 'emailPort must be 1–65535'),
  ),
  emailUsername: v.optional(
    v.pipe(v.string('emailUsername must be a string'), v.minLength(1), v.maxLength(256)),
  ),
  emailFrom: EmailAddressSchema,
  emailTo: v.pipe(
    v.array(EmailAddressSchema, 'emailTo must be an array of e-mail addresses'),
    v.minLength(1, 'emailTo needs at least one address'),
    v.maxLength(MAX_EMAIL_RECIPIENTS, `emailTo may hold at most ${MAX_EMAIL_RECIPIENTS} addresses`),
  ),
  emailStartTls: v.optional(v.boolean('emailStartTls must be true or false'), true),
});

/** Body of `POST /notifications/channels` and `PUT …/channels/:id` (the type selects the fields). */
export const ChannelBodySchema = v.variant(
  'type',
  [WebhookChannelSchema, NtfyChannelSchema, GotifyChannelSchema, DiscordChannelSchema, EmailChannelSchema],
  `type must be one of: ${CHANNEL_TYPES.join(', ')}`,
);

export type ChannelBody = v.InferOutput<typeof ChannelBodySchema>;

export interface WebhookConfig {
  webhookUrl: string;
  /** POST when absent. */
  webhookMethod?: 'POST' | 'PUT';
  webhookHeaders?: Record<string, string>;
  webhookAuthHeaderName?: string;
}
export interface NtfyConfig {
  ntfyUrl: string;
  ntfyTopic: string;
}
export interface GotifyConfig {
  gotifyUrl: string;
}
export type DiscordConfig = Record<string, never>;
export interface EmailConfig {
  emailHost: string;
  emailPort: number;
  emailUsername?: string;
  emailFrom: string;
  emailTo: string[];
  /** true when absent. */
  emailStartTls?: boolean;
}

/** The type fields of a channel, as stored in `notify_channels.config` (only the fields that are set). */
export type ChannelConfig =
  | { type: 'webhook'; config: WebhookConfig }
  | { type: 'ntfy'; config: NtfyConfig }
  | { type: 'gotify'; config: GotifyConfig }
  | { type: 'discord'; config: DiscordConfig }
  | { type: 'email'; config: EmailConfig };

const configSchemas = {
  webhook: WebhookChannelSchema,
  ntfy: NtfyChannelSchema,
  gotify: GotifyChannelSchema,
  discord: DiscordChannelSchema,
  email: EmailChannelSchema,
} as const;

/**
 * Split a validated body into its common fields, its type fields and its secret. Type fields that are
 * not set are absent from `config`.
 */
export function splitChannelBody(body: ChannelBody): {
  name: string;
  enabled: boolean;
  secret: string | null | undefined;
  channel: ChannelConfig;
} {
  const { name, enabled, type, secret, ...rest } = body;
  const config = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return { name: name.trim(), enabled, secret, channel: { type, config } as ChannelConfig };
}

/**
 * Read back a stored config (`notify_channels.config` parsed). A stored value that no longer validates
 * (written by an older or newer version) throws, so a sender never uses half a configuration.
 */
export function parseStoredConfig(type: ChannelType, config: unknown): ChannelConfig {
  const schema = configSchemas[type];
  const result = v.safeParse(schema, {
    ...(typeof config === 'object' && config !== null ? config : {}),
    name: 'stored',
    type,
  });
  if (!result.success) throw new Error(`stored ${type} channel configuration is invalid`);
  return splitChannelBody(result.output as ChannelBody).channel;
}
