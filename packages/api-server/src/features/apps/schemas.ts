/** Request and response schemas of the apps routes (02 §2, §3, §12; 08 §13). */
import { isTemplateId, NETWORK_NAME, templateNotFound } from '@appliance/template-installer';
import * as v from 'valibot';

/** `:id` failing the id pattern is 404 template_not_found (02 §4), not 400. */
export const TemplateParams = v.strictObject({
  id: v.pipe(
    v.string(),
    v.transform((id) => {
      if (!isTemplateId(id)) throw templateNotFound(id);
      return id;
    }),
  ),
});

const common = {
  name: v.optional(v.string()),
  values: v.optional(
    v.pipe(
      v.record(v.string(), v.string()),
      v.check((o) => Object.keys(o).length <= 256, 'at most 256 values'),
    ),
  ),
  networkMode: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        NETWORK_NAME,
        'must be bridge, host or a Docker network name (letters, digits, "_", "." and "-")',
      ),
      v.check((s) => s !== 'none', 'none is not allowed'),
    ),
  ),
  restart: v.optional(v.picklist(['no', 'always', 'unless-stopped', 'on-failure'])),
  cpus: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(1024))),
  memoryMiB: v.optional(v.pipe(v.number(), v.integer(), v.minValue(6), v.maxValue(16777216))),
};

/** 02 §2: checked by the install only; the preview accepts it (same pattern) and ignores it. */
const planDigest = v.optional(
  v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')),
);

export const PreviewBody = v.strictObject({ ...common, planDigest });
export const InstallBody = v.strictObject({ ...common, planDigest });

/** An environment variable name (02 §11.1): a body rule, so a bad one is `400 bad_request`. */
const EnvName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a letter or _, then letters, digits or _'),
);

export const CreateStackBody = v.strictObject({
  name: v.string(),
  compose: v.pipe(v.string(), v.maxLength(256 * 1024)),
  env: v.optional(
    v.pipe(
      v.record(EnvName, v.string()),
      v.check((o) => Object.keys(o).length <= 256, 'at most 256 variables'),
    ),
  ),
});

export const SourceIdParams = v.strictObject({ id: v.string() });

export const AddSourceBody = v.strictObject({
  id: v.string(),
  kind: v.picklist(['directory', 'https']),
  url: v.optional(v.string()),
  publicKey: v.optional(v.string()),
});

export const TemplateRef = v.object({ source: v.string(), id: v.string(), revision: v.number() });

export const StackSchema = v.object({
  name: v.string(),
  template: v.nullable(TemplateRef),
  installedAt: v.string(),
  manuallyEdited: v.boolean(),
  directory: v.string(),
});

const Privilege = v.object({
  kind: v.string(),
  service: v.string(),
  description: v.string(),
  detail: v.optional(v.string()),
});

export const PlanSchema = v.object({
  template: TemplateRef,
  title: v.string(),
  name: v.string(),
  services: v.array(v.string()),
  inputs: v.array(
    v.object({
      name: v.string(),
      kind: v.string(),
      generated: v.boolean(),
      required: v.boolean(),
      role: v.optional(v.string()),
      label: v.optional(v.string()),
      description: v.optional(v.string()),
      default: v.optional(v.string()),
      value: v.optional(v.string()),
      requestedValue: v.optional(v.string()),
      error: v.optional(v.string()),
      suggestions: v.optional(v.array(v.string())),
    }),
  ),
  privileges: v.array(Privilege),
  warnings: v.array(
    v.object({
      class: v.string(),
      message: v.string(),
      detail: v.optional(v.string()),
      command: v.optional(v.string()),
    }),
  ),
  compose: v.string(),
  planDigest: v.string(),
});

export const SourceSchema = v.object({
  id: v.string(),
  kind: v.string(),
  position: v.number(),
  url: v.nullable(v.string()),
  serial: v.nullable(v.number()),
  lastRefreshedAt: v.nullable(v.string()),
  templateCount: v.number(),
  error: v.nullable(v.string()),
});

export const CatalogSchema = v.object({
  sources: v.array(SourceSchema),
  templates: v.array(
    v.object({
      id: v.string(),
      source: v.string(),
      revision: v.nullable(v.number()),
      title: v.string(),
      categories: v.array(v.string()),
      docs: v.nullable(v.string()),
      webui: v.nullable(v.string()),
      alsoIn: v.array(v.string()),
      stacks: v.array(v.string()),
      problems: v.array(v.object({ path: v.string(), message: v.string() })),
    }),
  ),
});
