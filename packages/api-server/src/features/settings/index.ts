import { passphraseChange } from '@appliance/backups';
import { defaultHostname, hostnameLabelsValid, isTimeZone } from '@appliance/common';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import { settings } from '../../db/schema.ts';
import { defineRoute, ok } from '../../http/route.ts';
import type { Feature } from '../feature.ts';

export const HostnameSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(253, 'must be at most 253 characters'),
  v.check(hostnameLabelsValid, 'must be dot-separated labels of lowercase letters, digits and inner hyphens'),
);

const SettingsSchema = v.object({
  hostname: v.string(),
  timezone: v.string(),
  backupPassphraseSet: v.boolean(),
});

/** The singleton row, created on first start (08 §8). */
export function ensureSettings(ctx: AppContext): void {
  ctx.db
    .insert(settings)
    .values({
      id: 1,
      hostname: defaultHostname(),
      timezone: 'UTC',
      backupPassphrase: null,
      updatedAt: ctx.clock.now().toISOString(),
    })
    .onConflictDoNothing()
    .run();
}

const readQuery = preparedPerConnection((db) =>
  db.select().from(settings).where(eq(settings.id, 1)).prepare(),
);

/** The singleton row (a cached prepared query: GET /settings is on the hot path of the web UI). */
export function readSettings(db: Db) {
  return readQuery(db).get()!;
}

const toWire = (row: ReturnType<typeof readSettings>) => ({
  hostname: row.hostname,
  timezone: row.timezone,
  backupPassphraseSet: row.backupPassphrase !== null,
});

export const settingsFeature: Feature = {
  name: 'settings',
  start: ensureSettings,
  routes: [
    defineRoute({
      method: 'GET',
      path: '/settings',
      role: 'viewer',
      summary: 'Hostname, time zone and whether a backup passphrase is set',
      tags: ['settings'],
      responses: { 200: { description: 'Settings', schema: SettingsSchema } },
      handler: ({ ctx }) => ok(toWire(readSettings(ctx.db))),
    }),
    defineRoute({
      method: 'PUT',
      path: '/settings',
      role: 'admin',
      summary: 'Replace the settings (backupPassphrase: omitted keeps, null clears, a string sets)',
      tags: ['settings'],
      body: v.strictObject({
        hostname: HostnameSchema,
        timezone: v.pipe(v.string(), v.check(isTimeZone, 'must be an IANA time zone name or UTC')),
        backupPassphrase: v.optional(
          v.nullable(
            v.pipe(
              v.string(),
              v.minLength(12, 'must be at least 12 characters'),
              v.maxLength(1024, 'must be at most 1,024 characters'),
            ),
          ),
        ),
      }),
      responses: { 200: { description: 'Settings', schema: SettingsSchema } },
      handler: async ({ ctx, actor, body }) => {
        const passphrase = passphraseChange(body.backupPassphrase, (p) => ctx.sealer.seal(p));
        const row = await ctx.writes.run((db) => {
          db.update(settings)
            .set({
              hostname: body.hostname,
              timezone: body.timezone,
              ...(passphrase.stored !== undefined ? { backupPassphrase: passphrase.stored } : {}),
              updatedAt: ctx.clock.now().toISOString(),
            })
            .where(eq(settings.id, 1))
            .run();
          ctx.audit.record(db, actor, {
            operation: 'settings.update',
            target: 'settings',
            details: {
              hostname: body.hostname,
              timezone: body.timezone,
              backupPassphrase: passphrase.audit,
            },
          });
          return readSettings(db);
        });
        return ok(toWire(row));
      },
    }),
  ],
};
