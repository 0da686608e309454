/** Response schemas of the config archive routes (documentation: the OpenAPI document). */
import * as v from 'valibot';

const Item = v.object({ kind: v.string(), name: v.string() });
const Coded = v.object({ code: v.string(), message: v.string() });
const SecretState = v.picklist(['none', 'opened', 'no_passphrase', 'passphrase_incorrect']);

export const PreviewSchema = v.object({
  archive: v.object({
    createdAt: v.string(),
    hostname: v.string(),
    appVersion: v.string(),
    schemaVersion: v.string(),
  }),
  liveSchemaVersion: v.string(),
  blockers: v.array(Coded),
  groups: v.array(
    v.object({ category: v.string(), added: v.array(Item), changed: v.array(Item), removed: v.array(Item) }),
  ),
  secrets: v.object({ status: SecretState, identity: SecretState, stacks: v.array(v.string()) }),
  notes: v.array(Coded),
  bareMetal: v.optional(
    v.object({
      schemaUpgrade: v.boolean(),
      disks: v.array(
        v.object({
          name: v.string(),
          role: v.picklist(['parity', 'data', 'cache']),
          roleIndex: v.number(),
          mountpoint: v.string(),
          fsUuid: v.string(),
          weakIdentity: v.boolean(),
          state: v.picklist(['matched', 'absent', 'replaced', 'ambiguous']),
          wwn: v.optional(v.string()),
          serial: v.optional(v.string()),
          byIdName: v.optional(v.string()),
          sizeBytes: v.optional(v.number()),
          device: v.optional(v.string()),
        }),
      ),
      diskMapping: v.object({
        disks: v.array(v.object({ role: v.string(), roleIndex: v.number(), device: v.string() })),
      }),
    }),
  ),
});

export const ImportSchema = v.object({
  /** Logical path of the archive of the configuration before the import. */
  preImportArchive: v.string(),
  schemaUpgrade: v.boolean(),
  secrets: v.object({ status: SecretState, identity: SecretState, stacks: v.array(v.string()) }),
  notes: v.array(Coded),
});
