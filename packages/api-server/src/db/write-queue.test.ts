import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './open.ts';
import { settings } from './schema.ts';
import type { WalSyncer } from './wal-syncer.ts';
import { WriteQueue } from './write-queue.ts';

const fresh = () => {
  const o = openDatabase(':memory:');
  o.db.insert(settings).values({ id: 1, hostname: 'h0', timezone: 'UTC', updatedAt: 'x' }).run();
  return { ...o, q: new WriteQueue(o.sqlite, o.db) };
};

describe('WriteQueue (group commit)', () => {
  it('commits concurrent jobs in one transaction, each atomic on its own', async () => {
    const { db, sqlite } = fresh();
    let commits = 0;
    // The syncer is called once per committed batch.
    const syncer = {
      sync: () => {
        commits++;
        return Promise.resolve();
      },
      close() {},
    } as unknown as WalSyncer;
    const q = new WriteQueue(sqlite, db, { syncer });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        q.run((d) => {
          d.update(settings)
            .set({ hostname: `h${i}` })
            .where(eq(settings.id, 1))
            .run();
          if (i === 7) throw new Error('job 7 fails');
          return i;
        }),
      ),
    );
    expect(commits).toBe(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect((results[7] as PromiseRejectedResult).reason.message).toBe('job 7 fails');
    expect(db.select().from(settings).get()!.hostname).toBe('h19');
  });

  it('gathers the jobs that arrive while a WAL flush runs into the next batch', async () => {
    const { db, sqlite } = fresh();
    const flushes: Array<() => void> = [];
    const syncer = {
      sync: () => new Promise<void>((resolve) => flushes.push(resolve)),
      close() {},
    } as unknown as WalSyncer;
    const q = new WriteQueue(sqlite, db, { syncer });
    const bump = (name: string) =>
      q.run((d) => d.update(settings).set({ hostname: name }).where(eq(settings.id, 1)).run());
    const first = bump('first');
    await new Promise((r) => setImmediate(r));
    expect(flushes).toHaveLength(1); // batch 1 committed, its flush running
    const later = [bump('a'), bump('b')];
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(flushes).toHaveLength(1); // a and b wait: not committed yet
    expect(db.select().from(settings).get()!.hostname).toBe('first');
    flushes[0]!();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(flushes).toHaveLength(2); // one more batch for both
    expect(db.select().from(settings).get()!.hostname).toBe('b');
    flushes[1]!();
    await Promise.all(later);
    expect(flushes).toHaveLength(2);
  });

  it('undoes a failed job completely while the others of its batch stay', async () => {
    const { db, q } = fresh();
    await Promise.allSettled([
      q.run((d) => d.update(settings).set({ timezone: 'Europe/Paris' }).where(eq(settings.id, 1)).run()),
      q.run((d) => {
        d.update(settings).set({ hostname: 'half-written' }).where(eq(settings.id, 1)).run();
        throw new Error('refused');
      }),
    ]);
    const row = db.select().from(settings).get()!;
    expect(row.timezone).toBe('Europe/Paris');
    expect(row.hostname).toBe('h0');
  });

  it('refuses asynchronous jobs', async () => {
    const { q } = fresh();
    await expect(q.run(async () => 1)).rejects.toThrow(/synchronous/);
  });
});

describe('WriteQueue afterCommit', () => {
  it('starts after COMMIT (the rows are visible), overlaps the flush, and settles the job after both', async () => {
    const { db, sqlite } = fresh();
    const order: string[] = [];
    let releaseSync!: () => void;
    const syncer = {
      sync: () => {
        order.push('sync started');
        return new Promise<void>((r) => {
          releaseSync = () => {
            order.push('sync done');
            r();
          };
        });
      },
      close() {},
    } as unknown as WalSyncer;
    const q = new WriteQueue(sqlite, db, { syncer });
    const job = q.run(
      (d) => {
        d.update(settings).set({ hostname: 'after' }).where(eq(settings.id, 1)).run();
        return 'value';
      },
      {
        afterCommit: async (value) => {
          // committed: no transaction is open and the row is there
          order.push(`after(${value}) inTransaction=${sqlite.inTransaction}`);
          order.push(`row=${db.select().from(settings).get()!.hostname}`);
        },
      },
    );
    let settled = false;
    void job.then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['after(value) inTransaction=false', 'row=after', 'sync started']);
    expect(settled).toBe(false);
    releaseSync();
    await expect(job).resolves.toBe('value');
  });

  it('a failing afterCommit fails its own job only; the rows stay committed', async () => {
    const { db, sqlite, q } = fresh();
    const [a, b] = await Promise.allSettled([
      q.run((d) => d.update(settings).set({ hostname: 'a' }).where(eq(settings.id, 1)).run(), {
        afterCommit: () => Promise.reject(new Error('regeneration failed')),
      }),
      q.run(() => 'b', { afterCommit: () => Promise.resolve() }),
    ]);
    expect(a).toMatchObject({ status: 'rejected', reason: new Error('regeneration failed') });
    expect(b).toMatchObject({ status: 'fulfilled', value: 'b' });
    expect(sqlite.inTransaction).toBe(false);
    expect(db.select().from(settings).get()!.hostname).toBe('a');
  });

  it('is not called for a job that failed', async () => {
    const { q } = fresh();
    let called = false;
    await expect(
      q.run(
        () => {
          throw new Error('refused');
        },
        {
          afterCommit: async () => {
            called = true;
          },
        },
      ),
    ).rejects.toThrow('refused');
    expect(called).toBe(false);
  });
});

describe('WriteQueue with the WAL syncer', () => {
  it('acknowledges only after an fdatasync that started after the commit, and the data survives a reopen', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { WalSyncer } = await import('./wal-syncer.ts');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wq-'));
    const file = path.join(dir, 'state.db');
    const o = openDatabase(file, { asyncDurability: true });
    expect(o.sqlite.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    o.db.insert(settings).values({ id: 1, hostname: 'h0', timezone: 'UTC', updatedAt: 'x' }).run();
    const syncer = new WalSyncer(`${file}-wal`);
    const calls: string[] = [];
    const sync = syncer.sync.bind(syncer);
    syncer.sync = () => {
      calls.push('sync');
      return sync();
    };
    const q = new WriteQueue(o.sqlite, o.db, { syncer });
    const done = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        q.run(
          (d) =>
            d
              .update(settings)
              .set({ hostname: `h${i + 1}` })
              .where(eq(settings.id, 1))
              .run().changes,
        ),
      ),
    );
    expect(done).toEqual(Array(10).fill(1));
    expect(calls).toEqual(['sync']);
    syncer.close();
    o.close();
    const again = openDatabase(file);
    expect(again.db.select().from(settings).get()!.hostname).toBe('h10');
    again.close();
    fs.rmSync(dir, { recursive: true });
  });
});
