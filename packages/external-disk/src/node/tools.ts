import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@appliance/common';
import { FORMAT_TOOL_PACKAGES } from '../core/commands.ts';

/** Says which host tools are missing before anything runs (07 §6.3 check 4). */
export interface ToolCheck {
  missing(tools: readonly string[]): Promise<string[]>;
}

/** The PATH format commands run with (07 §6.4). */
export const FORMAT_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/** Looks each tool up as an executable file in the directories of `searchPath`. */
export function createToolCheck(searchPath: string = FORMAT_PATH): ToolCheck {
  const dirs = searchPath.split(':').filter((d) => d !== '');
  const found = async (tool: string) => {
    for (const dir of dirs) {
      const ok = await fs.access(path.join(dir, tool), constants.X_OK).then(
        () => true,
        () => false,
      );
      if (ok) return true;
    }
    return false;
  };
  return {
    async missing(tools) {
      const present = await Promise.all(tools.map(found));
      return tools.filter((_, i) => !present[i]);
    },
  };
}

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
