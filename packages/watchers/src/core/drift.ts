/**
 * `config_drift_detected`: a file the service generates (smb.conf, snapraid.conf, mount units, stack
 * compose files) no longer holds what the service last wrote to it: which file, a summary of the
 * difference, and what to do (the service would overwrite the edit, or its own copy is now stale).
 */
import type { Condition, Observation } from './model.ts';

export interface GeneratedFileFacts {
  /** As shown (logical path). */
  path: string;
  /** What the service wrote, and when. */
  recorded: { sha256: string; content: string | null; writtenAt: string };
  /** What is there now; `missing` when the file was deleted. */
  current: { sha256: string; content: string | null } | 'missing';
}

export const DRIFT_KEY_PREFIX = 'drift:';

export interface DiffSummary {
  added: number;
  removed: number;
  /** The first changed lines, `-` removed and `+` added, with their line numbers. */
  lines: string[];
}

const MAX_LINES = 2000;
const SHOWN = 6;
const cut = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * A line diff (longest common subsequence) of two texts, summarised: how many lines were added and
 * removed, and the first few of them. Texts longer than 2,000 lines are compared by their common
 * head and tail only.
 */
export function diffSummary(before: string, after: string): DiffSummary {
  let a = before.split('\n');
  let b = after.split('\n');
  // common head and tail first (an edit usually touches a few lines)
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  a = a.slice(head, a.length - tail);
  b = b.slice(head, b.length - tail);
  const ops: Array<{ sign: '-' | '+'; line: number; text: string }> = [];
  if (a.length * b.length > MAX_LINES * MAX_LINES || a.length > MAX_LINES || b.length > MAX_LINES) {
    for (const [i, text] of a.entries()) ops.push({ sign: '-', line: head + i + 1, text });
    for (const [i, text] of b.entries()) ops.push({ sign: '+', line: head + i + 1, text });
  } else {
    const n = a.length;
    const m = b.length;
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) {
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        ops.push({ sign: '-', line: head + i + 1, text: a[i]! });
        i++;
      } else {
        ops.push({ sign: '+', line: head + j + 1, text: b[j]! });
        j++;
      }
    }
  }
  return {
    added: ops.filter((o) => o.sign === '+').length,
    removed: ops.filter((o) => o.sign === '-').length,
    lines: ops.slice(0, SHOWN).map((o) => `${o.sign} ${o.line}: ${cut(o.text)}`),
  };
}

const plural = (n: number, word: string) => `${n} line${n === 1 ? '' : 's'} ${word}`;

/** What to do about an edit of this generated file. */
export function driftAdvice(path: string): string {
  if (path.endsWith('/samba/smb.conf'))
    return 'The service rewrites smb.conf at its next start and on the next change of a share, user or group, so this edit will be lost: put your own settings in smb.custom.conf beside it (smb.conf includes it), or undo the edit.';
  if (path.endsWith('/snapraid.conf'))
    return 'SnapRAID’s configuration is managed by the service and rewritten when the array changes: undo the edit, and change the array through the API.';
  if (/\.mount$|\.device\.d\//.test(path))
    return 'This systemd unit mounts an array disk at boot: an edited unit can keep a disk from mounting. Undo the edit (the service wrote it at array setup).';
  if (path.endsWith('/docker-compose.yml'))
    return 'The stack was edited by hand: it now runs differently from the stack the service recorded (and exports in a config archive). Make the change through the API instead, or undo the edit.';
  return 'Undo the edit, or make the change through the service.';
}

export function evaluateDrift(files: readonly GeneratedFileFacts[]): Observation {
  const conditions: Condition[] = [];
  for (const f of files) {
    if (f.current !== 'missing' && f.current.sha256 === f.recorded.sha256) continue;
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    let what: string;
    let value: string;
    if (f.current === 'missing') {
      value = 'deleted';
      what = `${f.path} was deleted outside the service (it wrote it on ${f.recorded.writtenAt}).`;
    } else {
      value = `sha256 ${f.current.sha256.slice(0, 12)}`;
      if (f.recorded.content !== null && f.current.content !== null) {
        const d = diffSummary(f.recorded.content, f.current.content);
        what = `${f.path} was changed outside the service: ${plural(d.added, 'added')}, ${plural(d.removed, 'removed')} since the service wrote it on ${f.recorded.writtenAt}:\n${d.lines.join('\n')}${d.added + d.removed > d.lines.length ? '\n…' : ''}\n`;
      } else
        what = `${f.path} was changed outside the service: its content differs from what the service wrote on ${f.recorded.writtenAt}.`;
    }
    conditions.push({
      key: `${DRIFT_KEY_PREFIX}${f.path}`,
      eventType: 'config_drift_detected',
      subject: f.path,
      value,
      title: `Generated file ${name} ${value === 'deleted' ? 'deleted' : 'changed'} outside the service`,
      message: `${what} ${driftAdvice(f.path)}`,
    });
  }
  return { conditions };
}
