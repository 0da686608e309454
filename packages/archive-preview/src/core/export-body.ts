import { badRequest } from '@appliance/common';

/** The largest export request body read (anything bigger is refused unread beyond it). */
export const EXPORT_BODY_LIMIT = 64 * 1024;

/**
 * `POST /config/export` takes no body, or `{}` (whitespace around it allowed); anything else (an
 * oversize body, text that is not JSON, any other JSON value or an object with keys) is
 * `400 bad_request`.
 */
export function checkExportBody(text: string): void {
  const refuse = () => badRequest([{ path: '', message: 'send no body, or {}' }]);
  if (Buffer.byteLength(text) > EXPORT_BODY_LIMIT) throw refuse();
  if (text.trim() === '') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse();
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    Object.keys(parsed).length > 0
  )
    throw refuse();
}
