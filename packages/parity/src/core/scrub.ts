import type { LogRecord } from './log.ts';

/** A file a scrub or check found a bad block in. */
export interface DamagedFile {
  disk: string;
  path: string;
  blocks: number;
  message: string;
}

/** What a scrub (or check) found: SnapRAID's own counts and the files the errors belong to. */
export interface ScrubFindings {
  dataErrors: number;
  ioErrors: number;
  fileErrors: number;
  /** Distinct files with errors, at most `limit`. */
  files: DamagedFile[];
  /** `summary:exit`: `ok`, `error`, or what SnapRAID said. */
  exit: string | null;
}

export class ScrubCollector {
  private readonly files = new Map<string, DamagedFile>();
  private readonly counts = { dataErrors: 0, ioErrors: 0, fileErrors: 0 };
  private exit: string | null = null;
  private readonly limit: number;
  constructor(limit = 1000) {
    this.limit = limit;
  }
  add(record: LogRecord): void {
    if (record.kind === 'error') {
      const key = `${record.disk}/${record.path}`;
      const seen = this.files.get(key);
      if (seen) seen.blocks += 1;
      else if (this.files.size < this.limit)
        this.files.set(key, { disk: record.disk, path: record.path, blocks: 1, message: record.message });
    } else if (record.kind === 'summary') {
      const n = Number(record.values[0]) || 0;
      if (record.key === 'error_data') this.counts.dataErrors = n;
      else if (record.key === 'error_io') this.counts.ioErrors = n;
      else if (record.key === 'error_file') this.counts.fileErrors = n;
      else if (record.key === 'exit') this.exit = record.values[0] ?? null;
    }
  }
  result(): ScrubFindings {
    return { ...this.counts, files: [...this.files.values()], exit: this.exit };
  }
  get errors(): number {
    return this.counts.dataErrors + this.counts.ioErrors + this.counts.fileErrors;
  }
}
