/** The catalog-source refusals (stable codes; their HTTP statuses are the server's error map). */
import { type Refusal, refuse } from '@appliance/common';

/** A refused input, as the server's `bad_request` (400) with its issues. */
export const invalidSource = (issues: { path: string; message: string }[]): Refusal =>
  refuse(
    'bad_request',
    `The request is not valid: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
    { issues },
  );

export const sourceNotFound = (id: string) =>
  refuse(
    'catalog_source_not_found',
    `There is no catalog source ${id}; list the catalog to see the sources.`,
    {
      source: id,
    },
  );

export const sourceExists = (id: string) =>
  refuse('catalog_source_exists', `A catalog source named ${id} already exists; choose another id.`, {
    source: id,
  });

export const sourcePathUnsafe = (id: string) =>
  refuse(
    'catalog_source_path_unsafe',
    `/var/lib/appliance/catalog/${id} is a symbolic link or not a directory; move it away and try again.`,
    { source: id },
  );

export const sourceNotRefreshable = (id: string, kind: string) =>
  refuse(
    'catalog_source_not_refreshable',
    `The source ${id} is a ${kind} source; only https sources are refreshed.`,
    { source: id },
  );

export const refreshRunning = (id: string) =>
  refuse('catalog_refresh_running', `A refresh of ${id} is already running; wait for it to finish.`, {
    source: id,
  });

export const refreshFailed = (id: string, message: string) =>
  refuse('catalog_refresh_failed', `The refresh of ${id} failed (${message}); the previous copy is kept.`, {
    source: id,
  });

export const builtinSource = () =>
  refuse('catalog_source_builtin', 'The built-in catalog cannot be removed.', { source: 'builtin' });
