/** Notes (01 §4.10), in this order, with or without blockers. */
import type { BareMetal } from './bare-metal.ts';

export type NoteCode = 'tokens_replaced' | 'array_state_kept' | 'array_degraded';
export interface Note {
  code: NoteCode;
  message: string;
}

export const NOTE_MESSAGES: Record<NoteCode, string> = {
  tokens_replaced:
    "Accounts and API tokens become the archive's: tokens created after the export, perhaps the one you are using, stop working. Sign in again with an account from the archive after the import.",
  array_state_kept:
    'The live array, including a pending foreign-system import, stays as it is; the archive does not change it.',
  array_degraded:
    'Some archived disks are not attached as recorded: they stay unmounted and the array runs degraded until they are replaced.',
};

export function notesFor(input: { fresh: boolean; bareMetal: BareMetal | undefined }): Note[] {
  const codes: NoteCode[] = ['tokens_replaced'];
  if (!input.fresh) codes.push('array_state_kept');
  if (input.fresh && input.bareMetal?.disks.some((d) => d.state !== 'matched')) codes.push('array_degraded');
  return codes.map((code) => ({ code, message: NOTE_MESSAGES[code] }));
}
