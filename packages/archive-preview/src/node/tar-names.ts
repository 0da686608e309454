/**
 * NUL bytes inside tar path names (01 §3 rule 6: a name has no control character).
 *
 * The `tar` package reads every name up to its first NUL and drops the rest, in the ustar header
 * fields and in pax records alike: `custom/a.custom.conf\0/../x` reached the entry checks as
 * `custom/a.custom.conf`, so the archive passed with a name other than the one it carries (issue
 * 25). A ustar field is NUL-terminated, so a name ends at its first NUL only when every byte after
 * it is NUL as well; a pax value or a GNU long name holds no NUL at all (a GNU long name may end in
 * NUL padding).
 *
 * The parser gives no access to a header's raw block, so `Header.prototype.decode` is wrapped once
 * (`markNulNames`, given the very `tar` module the reader parses with: the package ships an ES and a
 * CommonJS build, each with its own `Header`): each decoded header is marked when its own name
 * fields hide bytes after a NUL. The reader refuses a marked entry; the pax and GNU long-name bodies it checks from
 * the parser's `meta` event (`metaHidesNul`).
 */
import type { Header } from 'tar';

const MARK = Symbol('tar name hides bytes after a NUL');
const WRAPPED = Symbol('decode wrapped for NUL checks');

/** Whether a NUL-terminated field of `len` bytes at `start` holds a non-NUL byte after a NUL. */
function fieldHidesBytes(buf: Buffer, start: number, len: number): boolean {
  const end = Math.min(buf.length, start + len);
  const nul = buf.indexOf(0, start);
  if (nul < 0 || nul >= end) return false;
  for (let i = nul + 1; i < end; i++) if (buf[i] !== 0) return true;
  return false;
}

/** The ustar name and prefix fields of the header block at `off`, as the `tar` package reads them. */
function nameFieldsHideBytes(buf: Buffer, off: number): boolean {
  if (fieldHidesBytes(buf, off, 100)) return true;
  if (buf.subarray(off + 257, off + 265).toString('latin1') !== 'ustar\u000000') return false;
  return fieldHidesBytes(buf, off + 345, buf[off + 475] !== 0 ? 155 : 130);
}

type Decode = (buf: Buffer, off: number, ex?: { path?: string }, gex?: unknown) => void;

/** Wraps `HeaderClass.prototype.decode` (once per class) so `headerHidesNul` can answer. */
export function markNulNames(HeaderClass: typeof Header): void {
  const proto = HeaderClass.prototype as unknown as { decode: Decode; [WRAPPED]?: true };
  if (proto[WRAPPED]) return;
  const decode = proto.decode;
  proto.decode = function (this: Header & { [MARK]?: boolean }, buf, off, ex, gex) {
    decode.call(this, buf, off, ex, gex);
    // A name from a pax record or a GNU long name replaces the header's fields (checked apart).
    if (ex?.path === undefined && nameFieldsHideBytes(buf, off || 0)) this[MARK] = true;
  };
  proto[WRAPPED] = true;
}

/** Whether the entry's header name fields hide bytes after a NUL (set by the wrapped decode). */
export const headerHidesNul = (header: Header): boolean =>
  (header as Header & { [MARK]?: boolean })[MARK] === true;

/** A pax header's or GNU long name's body: any NUL except trailing NUL padding. */
export const metaHidesNul = (meta: string): boolean => meta.replace(/\0+$/, '').includes('\0');
