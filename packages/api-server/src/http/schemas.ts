import * as v from 'valibot';

/** Lowercase UUID path ids (08 §1): anything else → 400 bad_request. */
export const Uuid = v.pipe(
  v.string(),
  v.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a lowercase UUID'),
);
export const IdParams = v.strictObject({ id: Uuid });

export const Iso = v.pipe(v.string(), v.description('RFC 3339 UTC with milliseconds'));

export const ErrorBody = v.object({
  code: v.string(),
  message: v.string(),
  details: v.optional(v.record(v.string(), v.unknown())),
});

/** A POST that takes no body: none (with the route's `emptyBody: 'object'`), or `{}`. */
export const NoBody = v.strictObject({});

/** `?limit=1..500` of a listing, `fallback` when absent. */
export const PageLimit = (fallback: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'must be a whole number from 1 to 500'),
      v.transform(Number),
      v.minValue(1),
      v.maxValue(500),
    ),
    fallback,
  );

/** `?limit=1..500 (default 100)&before=<id>` pagination of audit and alerts. */
export const PageQuery = v.strictObject({
  limit: PageLimit('100'),
  before: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be an id'), v.transform(Number))),
});

export const UsernameSchema = v.pipe(
  v.string(),
  v.regex(
    /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/,
    'must start with a letter or _, then up to 31 letters, digits, _ or -',
  ),
);
export const PasswordSchema = v.pipe(
  v.string(),
  v.minLength(8, 'must be at least 8 characters'),
  v.maxLength(128, 'must be at most 128 characters'),
);
