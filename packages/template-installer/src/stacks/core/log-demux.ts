/**
 * The Engine's multiplexed log stream (pure): 8-byte frame headers `[stream, 0, 0, 0, size BE32]`
 * then the payload; with `timestamps=1` each line begins with its RFC 3339 time and a space. A
 * container with a TTY sends a raw stream (no headers): it is read as stdout lines.
 */
export interface DemuxedLine {
  stream: 'stdout' | 'stderr';
  time: string;
  text: string;
}

export class LogDemuxer {
  private buffer: Buffer = Buffer.alloc(0);
  private raw: boolean | null = null;
  private readonly partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };

  /** Lines completed by this chunk. */
  push(chunk: Buffer): DemuxedLine[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    if (this.raw === null && this.buffer.length > 0) {
      const b = this.buffer;
      this.raw = !(b[0]! <= 2 && (b.length < 4 || (b[1] === 0 && b[2] === 0 && b[3] === 0)));
    }
    const out: DemuxedLine[] = [];
    if (this.raw) {
      this.text('stdout', this.buffer.toString('utf8'), out);
      this.buffer = Buffer.alloc(0);
      return out;
    }
    while (this.buffer.length >= 8) {
      const size = this.buffer.readUInt32BE(4);
      if (this.buffer.length < 8 + size) break;
      const stream = this.buffer[0] === 2 ? 'stderr' : 'stdout';
      this.text(stream, this.buffer.subarray(8, 8 + size).toString('utf8'), out);
      this.buffer = this.buffer.subarray(8 + size);
    }
    return out;
  }

  /** Whatever is left without a final newline. */
  end(): DemuxedLine[] {
    const out: DemuxedLine[] = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream] !== '') out.push(line(stream, this.partial[stream]));
      this.partial[stream] = '';
    }
    return out;
  }

  private text(stream: 'stdout' | 'stderr', text: string, out: DemuxedLine[]): void {
    const all = this.partial[stream] + text;
    const parts = all.split('\n');
    this.partial[stream] = parts.pop() ?? '';
    for (const p of parts) out.push(line(stream, p));
  }
}

const STAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})) /;

function line(stream: 'stdout' | 'stderr', text: string): DemuxedLine {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  const m = STAMP.exec(t);
  return m ? { stream, time: m[1]!, text: t.slice(m[0].length) } : { stream, time: '', text: t };
}

/** Orders lines of several containers by time (stable), newest last, and keeps the last `tail`. */
export function mergeNewestLast<T extends { time: string }>(lists: readonly T[][], tail?: number): T[] {
  const all = lists.flat().map((l, i) => ({ l, i, k: timeKey(l.time) }));
  all.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i));
  const lines = all.map((x) => x.l);
  return tail === undefined ? lines : lines.slice(Math.max(0, lines.length - tail));
}

/** A sortable key of an Engine time stamp (UTC, fraction padded to nanoseconds). */
export function timeKey(time: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(time);
  if (!m) return time;
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}Z`;
}
