import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * System tests call this in beforeAll: a missing prerequisite is a failure with a sentence saying
 * what to install (tests are never skipped; the README test command installs everything).
 */
export async function requirePrerequisites(opts: { root?: boolean; tools?: string[] }): Promise<void> {
  const missing: string[] = [];
  if (opts.root && process.getuid?.() !== 0) missing.push('root privileges (run the test command as root)');
  for (const tool of opts.tools ?? []) {
    const found = await run('sh', ['-c', 'command -v "$1"', 'sh', tool]).then(
      () => true,
      () => false,
    );
    if (!found) missing.push(`the host tool ${tool}`);
  }
  if (missing.length > 0) {
    throw new Error(
      `Missing test prerequisites: ${missing.join(', ')}. Run the README test command (bash tools/test.sh), which installs them.`,
    );
  }
}
