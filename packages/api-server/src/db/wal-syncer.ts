import fs from 'node:fs';

/**
 * Makes committed WAL frames durable without blocking the event loop: an `fdatasync` of the WAL
 * file on libuv's thread pool. `sync()` resolves once an fdatasync that STARTED AFTER the call
 * has finished, so everything committed before the call is on disk; concurrent callers share one
 * fdatasync (group commit), and a caller that arrives while one is running waits for the next.
 */
export class WalSyncer {
  private readonly file: string;
  private fd: number | null = null;
  private inFlight: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(walFile: string) {
    this.file = walFile;
  }

  sync(): Promise<void> {
    if (!this.inFlight) return this.start();
    this.next ??= this.inFlight.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private startNext(): Promise<void> {
    this.next = null;
    return this.start();
  }

  private start(): Promise<void> {
    this.fd ??= fs.openSync(this.file, 'r');
    const fd = this.fd;
    const p = new Promise<void>((resolve, reject) =>
      fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())),
    );
    this.inFlight = p;
    const clear = () => {
      if (this.inFlight === p) this.inFlight = null;
    };
    p.then(clear, clear);
    return p;
  }
}
