/** The typed confirmations of a stack removal (issue 35). */
import { AppError } from '@appliance/common';

export const removePhrase = (name: string) => `DELETE ${name}`;
export const removeDataPhrase = (name: string) => `DELETE ${name} AND ITS DATA`;

/** Refuses (400 confirmation_mismatch) unless the phrase matches what is removed. */
export function checkRemoveConfirmation(name: string, confirm: string, removeData: boolean): void {
  const want = removeData ? removeDataPhrase(name) : removePhrase(name);
  if (confirm === want) return;
  throw new AppError(
    400,
    'confirmation_mismatch',
    removeData
      ? `To remove the stack ${name} and its data, type exactly "${want}".`
      : `To remove the stack ${name}, type exactly "${want}" (its data folders are kept).`,
    { expected: want },
  );
}
