import { badRequest, type AppError, type ValidationIssue } from '@appliance/common';
import * as v from 'valibot';

/** At most this many issues are reported (an array of 10,000 bad ids answers with a readable error). */
export const MAX_REPORTED_ISSUES = 20;

/** valibot issues → the wire's `details.issues` (`path` as a dot path such as `channelIds.2`). */
export function toValidationIssues(issues: readonly v.BaseIssue<unknown>[], prefix = ''): ValidationIssue[] {
  return issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const dot = v.getDotPath(issue) ?? '';
    const path = prefix && dot ? `${prefix}.${dot}` : prefix || dot;
    return { path, message: friendlyMessage(issue) };
  });
}

/** valibot's object-key issues in plain words ("… is required", "unknown field"). */
function friendlyMessage(issue: v.BaseIssue<unknown>): string {
  const key = issue.path?.at(-1)?.key;
  const objectIssue = issue.kind === 'schema' && /object$/.test(issue.type);
  if (objectIssue && typeof key === 'string') {
    if (issue.expected === 'never') return `unknown field "${key}"; remove it`;
    if (issue.received === 'undefined') return `${key} is required`;
  }
  if (objectIssue && issue.path === undefined) return 'the body must be a JSON object';
  return issue.message;
}

/** Parse `input` with `schema`, or throw `400 bad_request` with one issue per problem. */
export function parseOrThrow<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix = '',
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  throw badRequestFrom(result.issues, prefix);
}

export function badRequestFrom(issues: readonly v.BaseIssue<unknown>[], prefix = ''): AppError {
  return badRequest(toValidationIssues(issues, prefix));
}
