import { CHANNEL_TYPES, EVENT_TYPES, SEVERITIES } from '@appliance/notify-routing';
import * as v from 'valibot';
import { Iso } from '../../http/schemas.ts';

export const RoutingEntrySchema = v.object({
  eventType: v.picklist(EVENT_TYPES),
  severity: v.picklist(SEVERITIES),
  channelIds: v.array(v.string()),
  isDefaultSeverity: v.boolean(),
});

export const EventTypesSchema = v.object({
  eventTypes: v.array(
    v.object({
      eventType: v.picklist(EVENT_TYPES),
      defaultSeverity: v.picklist(SEVERITIES),
      description: v.string(),
      /**
       * Whether this installation can raise it now (a feature of it raises the event; the UPS events
       * need a UPS in the settings): route only observed events.
       */
      observed: v.boolean(),
    }),
  ),
});

/** A channel: the common fields; an admin also sees the type fields (08 §7.1). Never the secret. */
export const ChannelSchema = v.looseObject({
  id: v.string(),
  name: v.string(),
  type: v.picklist(CHANNEL_TYPES),
  enabled: v.boolean(),
  hasSecret: v.boolean(),
  createdAt: Iso,
  updatedAt: Iso,
});

export const TestResultSchema = v.object({ success: v.boolean(), error: v.optional(v.string()) });

export const AlertSchema = v.object({
  id: v.number(),
  eventType: v.string(),
  severity: v.picklist(SEVERITIES),
  title: v.string(),
  message: v.string(),
  occurredAt: Iso,
});

export const AlertsPageSchema = v.object({
  alerts: v.array(AlertSchema),
  nextBefore: v.nullable(v.number()),
});
