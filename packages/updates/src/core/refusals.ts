/**
 * The refusals of the update operations: a code, a sentence, details (no transport; the server's
 * error map gives `not_configured` its 501).
 */
import { missingTool, type Refusal, refuse } from '@appliance/common';

/** apt-get is not installed where the service looks for its tools. */
export const aptMissing = (): Refusal => {
  const tool = missingTool('apt-get');
  return refuse(tool.code, tool.message, tool.details);
};

/** A sandbox (root prefix) without an apt configuration of its own: it never updates its machine. */
export const aptNotConfigured = (): Refusal =>
  refuse(
    'not_configured',
    'This service runs in a sandbox (a root prefix) without an apt configuration of its own ([updates] aptConfig): it never updates the machine it runs on.',
  );
