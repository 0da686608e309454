import fs from 'node:fs';

/**
 * Makes committed WAL frames durable without blocking the event loop: an `fdatasync` of the WAL
 * file on libuv's thread pool. `sync()` resolves once an fdatasync that STARTED AFTER the call has
 * finished, so everything committed before the call is on disk. The write queue calls it once
 * per committed batch (one batch per event-loop turn at most); each call starts its own
 * fdatasync at once, so a batch never waits for a flush that began before its commit to finish
 * first, and concurrent flushes of the same file share the filesystem's journal commit.
 */
export class WalSyncer {
  private readonly file: string;
  private fd: number | null = null;

  constructor(walFile: string) {
    this.file = walFile;
  }

  sync(): Promise<void> {
    this.fd ??= fs.openSync(this.file, 'r');
    const fd = this.fd;
    return new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
