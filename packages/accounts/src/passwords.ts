import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { tooBusy } from './core/refusals.ts';

/** 08 §2: scrypt N = 2^17, r = 8, p = 1, 64-byte key, 16-byte salt, maxmem 256 MiB. */
export const SCRYPT = { ln: 17, r: 8, p: 1, keyLen: 64, saltLen: 16, maxmem: 256 * 1024 * 1024 };

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
const fromB64 = (s: string) => Buffer.from(s, 'base64');

function scrypt(password: string, salt: Buffer, keyLen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keyLen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** At most 2 hashes at once; more than 16 waiting → `too_busy` (503). */
export class HashQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly maxWaiting: number;
  constructor(concurrency = 2, maxWaiting = 16) {
    this.concurrency = concurrency;
    this.maxWaiting = maxWaiting;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw tooBusy();
      }
      await new Promise<void>((r) => this.waiting.push(r));
    }
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

export class Passwords {
  private readonly queue: HashQueue;
  private readonly params: typeof SCRYPT;
  constructor(queue = new HashQueue(), params = SCRYPT) {
    this.queue = queue;
    this.params = params;
  }

  hash(password: string): Promise<string> {
    return this.queue.run(async () => {
      const { ln, r, p, keyLen, saltLen, maxmem } = this.params;
      const salt = randomBytes(saltLen);
      const key = await scrypt(password, salt, keyLen, { N: 2 ** ln, r, p, maxmem });
      return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
    });
  }

  /** Verifies against a stored hash; with `null` it does the same work and answers false. */
  verify(password: string, stored: string | null): Promise<boolean> {
    return this.queue.run(async () => {
      const parsed = stored ? parseHash(stored) : null;
      const { ln, r, p } = parsed ?? { ln: this.params.ln, r: this.params.r, p: this.params.p };
      const salt = parsed?.salt ?? Buffer.alloc(this.params.saltLen);
      const expected = parsed?.key ?? Buffer.alloc(this.params.keyLen);
      const key = await scrypt(password, salt, expected.length, {
        N: 2 ** ln,
        r,
        p,
        maxmem: this.params.maxmem,
      });
      return timingSafeEqual(key, expected) && parsed !== null;
    });
  }
}

function parseHash(stored: string): { ln: number; r: number; p: number; salt: Buffer; key: Buffer } | null {
  const m = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!m) return null;
  return { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]), salt: fromB64(m[4]!), key: fromB64(m[5]!) };
}
