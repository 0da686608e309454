/**
 * SnapRAID's machine-readable log (`--log ">&2"`, with `--gui` for `run:` progress records), one
 * line at a time. Fields are separated by `:`; inside a field SnapRAID escapes `:` as `\d`, a
 * newline as `\n`, a carriage return as `\r` and a backslash as `\\`.
 */

export type ChangeKind = 'equal' | 'add' | 'remove' | 'update' | 'move' | 'copy' | 'restore';

export type LogRecord =
  /** A file `diff` (or the diff inside `sync`) found changed; `path` relative to the disk. */
  | { kind: 'scan'; change: ChangeKind; disk: string; path: string; from?: string }
  /** `summary:<key>:<value…>` (counts, exit state, status figures). */
  | { kind: 'summary'; key: string; values: string[] }
  /** Start of the block loop: `countMax` blocks will be processed. */
  | { kind: 'run_begin'; blockStart: number; blockMax: number; countMax: number }
  /** Progress: `countSize` bytes processed so far, percent, ETA in seconds, speed in MB/s. */
  | {
      kind: 'run_pos';
      blockPos: number;
      countPos: number;
      countSize: number;
      percent: number;
      etaSeconds: number;
      speedMBs: number;
      cpuPercent: number;
      elapsedSeconds: number;
    }
  | { kind: 'run_end' }
  /** A block error found by `scrub`/`check`/`fix`: the file it belongs to and what was wrong. */
  | { kind: 'error'; block: number; disk: string; path: string; message: string }
  /** A file `fix` rebuilt or could not rebuild; `check` reports the same states. */
  | { kind: 'fixed'; state: FileFixState; disk: string; path: string; message: string }
  | { kind: 'blocksize'; bytes: number }
  /** `info_time:<unix>:<blocks>:<what>` of `status`: how many blocks were last scrubbed/synced when. */
  | { kind: 'info_time'; unixTime: number; blocks: number; what: string }
  | { kind: 'msg'; level: string; text: string }
  | { kind: 'other'; tag: string; fields: string[] };

export type FileFixState = 'recovered' | 'unrecoverable' | 'ok' | 'recoverable' | 'error';

/** Undoes SnapRAID's escaping of one field. */
export function unescapeField(field: string): string {
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) =>
    c === 'd' ? ':' : c === 'n' ? '\n' : c === 'r' ? '\r' : c,
  );
}

const CHANGES = new Set<ChangeKind>(['equal', 'add', 'remove', 'update', 'move', 'copy', 'restore']);
const FIX_STATES = new Set<FileFixState>(['recovered', 'unrecoverable', 'ok', 'recoverable', 'error']);

const num = (s: string | undefined): number => {
  const n = Number(s);
  return Number.isFinite(n) ? n : 0;
};

/**
 * Parses one log line, or returns null for a line that is not a log record (SnapRAID writes its
 * human messages to the same stream). Never throws.
 */
export function parseLogLine(line: string): LogRecord | null {
  const colon = line.indexOf(':');
  if (colon <= 0) return null;
  const tag = line.slice(0, colon);
  if (!/^[a-z_]+$/.test(tag)) return null;
  const rest = line.slice(colon + 1);
  switch (tag) {
    case 'msg': {
      const m = /^([a-z]+): ?(.*)$/s.exec(rest);
      return m ? { kind: 'msg', level: m[1]!, text: m[2]! } : null;
    }
    case 'scan': {
      const f = rest.split(':');
      const change = f[0] as ChangeKind;
      if (!CHANGES.has(change) || f.length < 3) return { kind: 'other', tag, fields: f };
      const disk = unescapeField(f[1]!);
      if (change === 'move' && f.length >= 4)
        return { kind: 'scan', change, disk, from: unescapeField(f[2]!), path: unescapeField(f[3]!) };
      return { kind: 'scan', change, disk, path: unescapeField(f.at(-1)!) };
    }
    case 'summary': {
      const [key = '', ...values] = rest.split(':');
      return { kind: 'summary', key, values: values.map(unescapeField) };
    }
    case 'run': {
      const f = rest.split(':');
      if (f[0] === 'begin')
        return { kind: 'run_begin', blockStart: num(f[1]), blockMax: num(f[2]), countMax: num(f[3]) };
      if (f[0] === 'end') return { kind: 'run_end' };
      if (f[0] === 'pos')
        return {
          kind: 'run_pos',
          blockPos: num(f[1]),
          countPos: num(f[2]),
          countSize: num(f[3]),
          percent: num(f[4]),
          etaSeconds: num(f[5]),
          speedMBs: num(f[6]),
          cpuPercent: num(f[7]),
          elapsedSeconds: num(f[8]),
        };
      return { kind: 'other', tag, fields: f };
    }
    case 'error': {
      // error:<block>:<disk>:<path>: <message>
      const m = /^(\d+):([^:]*):([^:]*): ?(.*)$/s.exec(rest);
      if (!m) return { kind: 'other', tag, fields: rest.split(':') };
      return {
        kind: 'error',
        block: num(m[1]),
        disk: unescapeField(m[2]!),
        path: unescapeField(m[3]!),
        message: m[4]!.trim(),
      };
    }
    case 'status': {
      // status:<state>:<disk>:<path>: <message> (fix/check: recovered, unrecoverable, …)
      const m = /^([a-z]+):([^:]*):([^:]*):? ?(.*)$/s.exec(rest);
      if (m && FIX_STATES.has(m[1] as FileFixState))
        return {
          kind: 'fixed',
          state: m[1] as FileFixState,
          disk: unescapeField(m[2]!),
          path: unescapeField(m[3]!),
          message: m[4]!.trim(),
        };
      return { kind: 'other', tag, fields: rest.split(':') };
    }
    case 'blocksize':
      return { kind: 'blocksize', bytes: num(rest) };
    case 'info_time': {
      const f = rest.split(':');
      return { kind: 'info_time', unixTime: num(f[0]), blocks: num(f[1]), what: f[2] ?? '' };
    }
    default:
      return { kind: 'other', tag, fields: rest.split(':') };
  }
}

/** The messages SnapRAID means for a person (errors first), from `msg:` records. */
export function isErrorMessage(record: LogRecord): boolean {
  return record.kind === 'msg' && (record.level === 'fatal' || record.level === 'error');
}
