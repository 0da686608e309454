/** Request and response schemas of POST /shares/:name/data/delete (valibot; also the OpenAPI document). */
import { DATA_DELETE_SHARE_NAME } from '@appliance/shares';
import * as v from 'valibot';

export const DataDeleteParams = v.strictObject({
  name: v.pipe(
    v.string(),
    v.regex(
      DATA_DELETE_SHARE_NAME,
      'must be 1–64 ASCII letters, digits, _ or -, starting with a letter or digit (no dots, slashes or spaces)',
    ),
  ),
});

export const DataDeleteBody = v.strictObject({
  confirmation: v.optional(
    v.nullable(
      v.pipe(v.string('must be a string or null'), v.description('Must equal the share name exactly')),
    ),
  ),
  dryRun: v.optional(v.boolean('must be true or false')),
});

const Counts = {
  filesDeleted: v.number(),
  dirsDeleted: v.number(),
  bytesFreed: v.number(),
};

export const DeleteReportSchema = v.object({
  share: v.string(),
  dryRun: v.boolean(),
  branches: v.array(
    v.object({
      disk: v.string(),
      path: v.string(),
      present: v.boolean(),
      ...Counts,
      status: v.picklist(['ok', 'absent', 'incomplete', 'read_only', 'disk_error']),
      failureCount: v.number(),
    }),
  ),
  untouched: v.array(v.object({ disk: v.string(), path: v.string() })),
  totals: v.object(Counts),
});
