import { AppError, badRequest, type ValidationIssue } from '@appliance/common';
import * as v from 'valibot';
import { EVENT_TYPES, type EventType, SEVERITIES, type Severity } from './catalog.ts';
import { parseOrThrow } from './issues.ts';

export const MAX_ROUTED_CHANNELS = 100;

/** Path parameters of `…/routing/:eventType` (04 §2.1 check 6). */
export const EventTypeParamsSchema = v.object({
  eventType: v.picklist(
    EVENT_TYPES,
    'unknown event type; use one of the values listed by GET /api/v1/notifications/event-types',
  ),
});

export const SeveritySchema = v.picklist(
  SEVERITIES,
  'severity must be one of: info, warning, error, critical',
);

export const ChannelIdSchema = v.pipe(
  v.string('a channel id must be a string'),
  v.uuid('a channel id must be a UUID such as 3f0c5e1a-9d1b-4c55-8a0e-2b7f3c1d9e00'),
);

/** Body of `PUT /notifications/routing/:eventType` (04 §2.1 check 7). Duplicates are check 8. */
export const RoutingUpdateBodySchema = v.strictObject({
  severity: SeveritySchema,
  channelIds: v.pipe(
    v.array(ChannelIdSchema, 'channelIds must be an array of channel ids'),
    v.maxLength(MAX_ROUTED_CHANNELS, `channelIds may hold at most ${MAX_ROUTED_CHANNELS} ids`),
  ),
});

export interface RoutingUpdate {
  eventType: EventType;
  severity: Severity;
  /** Lowercased, in request order, no duplicates. */
  channelIds: string[];
}

/**
 * Checks 6–8 of 04 §2.1 in order: the event type, then the body, then duplicates after lowercasing.
 * Throws `400 bad_request` with `details.issues`; returns the normalised request.
 */
export function parseRoutingUpdate(eventType: unknown, body: unknown): RoutingUpdate {
  const params = parseOrThrow(EventTypeParamsSchema, { eventType });
  if (Array.isArray(body)) throw badRequest([{ path: '', message: 'the body must be a JSON object' }]);
  return normalizeRoutingUpdate(params.eventType, parseOrThrow(RoutingUpdateBodySchema, body));
}

/**
 * Check 8 and normalisation for a request whose path and body already passed
 * `EventTypeParamsSchema` and `RoutingUpdateBodySchema` (the HTTP layer validates them): lowercases
 * the ids and refuses duplicates. Throws `400 bad_request` with `details.issues`.
 */
export function normalizeRoutingUpdate(
  eventType: EventType,
  body: v.InferOutput<typeof RoutingUpdateBodySchema>,
): RoutingUpdate {
  const channelIds = body.channelIds.map((id) => id.toLowerCase());
  const duplicates = duplicateIssues(channelIds);
  if (duplicates.length > 0) throw badRequest(duplicates);
  return { eventType, severity: body.severity, channelIds };
}

/** One issue per later occurrence of an id already seen (`channelIds.<index>`). */
export function duplicateIssues(lowercasedIds: readonly string[]): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  lowercasedIds.forEach((id, index) => {
    if (seen.has(id)) issues.push({ path: `channelIds.${index}`, message: 'duplicate channel id' });
    seen.add(id);
  });
  return issues;
}

/** Check 9: every id must name an existing channel; the unknown ones in request order. */
export function unknownChannelError(
  requested: readonly string[],
  existing: Iterable<string>,
): AppError | null {
  const known = new Set(existing);
  const unknownChannelIds = requested.filter((id) => !known.has(id));
  if (unknownChannelIds.length === 0) return null;
  return new AppError(
    400,
    'notification_unknown_channel',
    `No notification channel has the id ${unknownChannelIds.join(', ')}. Create the channel first, or remove the id from channelIds (GET /api/v1/notifications/channels lists the channels).`,
    { unknownChannelIds },
  );
}
