/**
 * Human output: aligned tables (cli-table3 without borders), sizes in IEC units, relative times.
 * `--json` bypasses all of it and prints the API's JSON.
 */
import Table from 'cli-table3';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** 1536 → "1.5 KiB"; null → "-". One decimal below 10 units, none above. */
export function iec(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '-';
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} B`;
  const text = value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value).toString();
  return `${text} ${UNITS[unit]}`;
}

const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];
const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** An RFC 3339 time as "3 minutes ago" / "in 2 days"; null → "never". */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  let delta = (t - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(delta) < size) return rtf.format(Math.round(delta), unit);
    delta /= size;
  }
  return iso;
}

/** Seconds as "1m 05s" / "12s". */
export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

const NONE = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** An aligned table: a header row in capitals, then one row per item; cells are strings. */
export function table(
  head: string[],
  rows: Array<Array<string | number | boolean | null | undefined>>,
): string {
  const t = new Table({
    head: head.map((h) => h.toUpperCase()),
    chars: NONE,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const r of rows) t.push(r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))));
  // cli-table3 pads the last column too: trailing spaces are noise in a terminal and in diffs
  return `${t
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}

/** `key: value` lines with the keys aligned. */
export function fields(pairs: Array<[string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .map(
      ([k, v]) =>
        `${`${k}:`.padEnd(width + 2)}${v === null || v === undefined || v === '' ? '-' : String(v)}\n`,
    )
    .join('');
}
