/**
 * Typed confirmations (issue 17): on a terminal, show what will be erased and ask for the exact
 * phrase; `--confirm PHRASE` for scripts (the service checks it); without either, refuse (exit 2).
 */
import { Refusal, UsageError } from './exit.ts';
import { interactive, type Io } from './io.ts';
import { ask } from './prompt.ts';

export interface ConfirmRequest {
  /** `--confirm` as given (undefined when absent). */
  given: string | undefined;
  /** What the operation does, for the refusal messages ("erase /dev/sde"). */
  action: string;
  /** Computes the phrase and the description (may call the API); only used on a terminal. */
  prepare(): Promise<{ expected: string; description: string }>;
}

/** The phrase to send: `--confirm`'s value, or the phrase the person typed (checked here first). */
export async function confirmPhrase(io: Io, req: ConfirmRequest): Promise<string> {
  if (req.given !== undefined) return req.given;
  if (!interactive(io))
    throw new UsageError(
      `to ${req.action} without a terminal, pass the confirmation phrase with --confirm "PHRASE" (run it once on a terminal to see the phrase)`,
    );
  const { expected, description } = await req.prepare();
  io.stderr.write(description.endsWith('\n') ? description : `${description}\n`);
  const typed = await ask(io, `Type "${expected}" to confirm: `);
  if (typed !== expected)
    throw new Refusal(
      'confirmation_required',
      `The phrase typed is not "${expected}": nothing was changed. Run the command again to retry.`,
    );
  return typed;
}
