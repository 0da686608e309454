import { AppError } from '@appliance/common';
import { FORMAT_TOOL_PACKAGES } from '../core/commands.ts';

/** `501 not_configured` naming the Debian package of the first missing tool. */
export function missingToolRefusal(tools: readonly string[]): AppError {
  const tool = tools[0] ?? 'unknown';
  const pkg = FORMAT_TOOL_PACKAGES[tool] ?? 'util-linux';
  return new AppError(
    501,
    'not_configured',
    `The host tool ${tool} is not installed: install the Debian package ${pkg} (apt-get install ${pkg}) and try again.`,
    { tool, package: pkg, missing: [...tools] },
  );
}
