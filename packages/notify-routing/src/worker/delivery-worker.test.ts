import { fixedClock } from '@appliance/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryOutcome } from '../core/retry.ts';
import { createChannelSender } from '../node/send.ts';
import { startHttpReceiver } from '../test-support/http-receiver.ts';
import { DeliveryWorker, type DeliveryQueueStore, type DueDelivery } from './delivery-worker.ts';
import { manualTimeoutProvider } from './timers.ts';

/** A plain-data queue: rows with a status and a due time, like `notify_deliveries`. */
function memoryQueue(rows: Array<{ id: number; url: string }>) {
  const state = new Map(
    rows.map((r) => [
      r.id,
      {
        url: r.url,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: '1970-01-01T00:00:00.000Z',
        lastError: null as string | null,
      },
    ]),
  );
  const store: DeliveryQueueStore = {
    due: (now, limit) =>
      [...state]
        .filter(([, r]) => r.status === 'pending' && Date.parse(r.nextAttemptAt) <= now.getTime())
        .slice(0, limit)
        .map(
          ([id, r]): DueDelivery => ({
            id,
            attempts: r.attempts,
            channel: { type: 'webhook', config: { webhookUrl: r.url } },
            secret: null,
            message: {
              eventType: 'disk_offline',
              severity: 'critical',
              title: 't',
              message: 'm',
              occurredAt: '2026-11-22T09:00:00.000Z',
              host: 'nas',
            },
          }),
        ),
    record: (id, outcome: DeliveryOutcome) => {
      const row = state.get(id)!;
      Object.assign(row, { ...outcome, nextAttemptAt: outcome.nextAttemptAt ?? row.nextAttemptAt });
    },
  };
  return { store, state };
}

describe('DeliveryWorker', () => {
  let http: Awaited<ReturnType<typeof startHttpReceiver>>;
  beforeAll(async () => {
    http = await startHttpReceiver();
  });
  afterAll(async () => {
    await http?.close();
  });

  it('delivers due rows and retries failures on the 30 s / 2 / 10 / 30 min schedule, then fails them', async () => {
    const clock = fixedClock('2026-11-22T09:00:00.000Z');
    const q = memoryQueue([
      { id: 1, url: http.url('/status/204') },
      { id: 2, url: http.url('/status/503') },
    ]);
    const worker = new DeliveryWorker({
      store: q.store,
      send: createChannelSender(),
      clock,
      timers: manualTimeoutProvider(),
    });

    expect(await worker.tick()).toEqual({ delivered: 1, retried: 1, failed: 0 });
    expect(q.state.get(1)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(q.state.get(2)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: '2026-11-22T09:00:30.000Z',
      lastError: 'HTTP 503 from the endpoint',
    });

    // Not due yet: nothing is sent.
    clock.set('2026-11-22T09:00:29.000Z');
    expect(await worker.tick()).toEqual({ delivered: 0, retried: 0, failed: 0 });

    const waits = [30, 120, 600, 1800];
    let at = Date.parse('2026-11-22T09:00:00.000Z');
    for (const [i, wait] of waits.entries()) {
      at += wait * 1000;
      clock.set(new Date(at));
      const summary = await worker.tick();
      expect(q.state.get(2)!.attempts).toBe(i + 2);
      expect(summary.failed).toBe(i === 3 ? 1 : 0);
    }
    expect(q.state.get(2)).toMatchObject({ status: 'failed', attempts: 5 });
    clock.set('2026-11-23T00:00:00.000Z');
    expect(await worker.tick()).toEqual({ delivered: 0, retried: 0, failed: 0 });
  });

  it('runs on the injected timers every interval once started, and stops', async () => {
    const clock = fixedClock('2026-11-22T09:00:00.000Z');
    const timers = manualTimeoutProvider();
    let dueCalls = 0;
    const worker = new DeliveryWorker({
      store: {
        due: () => {
          dueCalls++;
          return [];
        },
        record: () => {},
      },
      send: createChannelSender(),
      clock,
      timers,
    });
    worker.start();
    timers.advance(0);
    await new Promise((r) => setImmediate(r));
    expect(dueCalls).toBe(1);
    timers.advance(29_999);
    await new Promise((r) => setImmediate(r));
    expect(dueCalls).toBe(1);
    timers.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(dueCalls).toBe(2);
    worker.wake();
    timers.advance(0);
    await new Promise((r) => setImmediate(r));
    expect(dueCalls).toBe(3);
    await worker.stop();
    expect(timers.scheduled).toBe(0);
    timers.advance(60_000);
    expect(dueCalls).toBe(3);
  });

  it('a wake during a running tick gets its own pass at once, not after the interval', async () => {
    const timers = manualTimeoutProvider();
    const queued: DueDelivery[] = [];
    const sent: number[] = [];
    let release: () => void = () => {};
    const row = (id: number): DueDelivery => ({
      id,
      attempts: 0,
      channel: { type: 'discord', config: {} },
      secret: null,
      message: { eventType: 'x', severity: 'info', title: 't', message: 'm', occurredAt: 'now', host: 'nas' },
    });
    queued.push(row(1));
    const worker = new DeliveryWorker({
      store: { due: () => queued.splice(0), record: () => {} },
      send: async (_c, _s, _m) => {
        sent.push(sent.length + 1);
        if (sent.length === 1) await new Promise<void>((r) => (release = r));
        return { success: true };
      },
      clock: fixedClock('2026-11-22T09:00:00.000Z'),
      timers,
    });
    const flush = () => new Promise((r) => setImmediate(r));
    worker.start();
    timers.advance(0);
    await flush();
    expect(sent).toEqual([1]); // the first send hangs
    queued.push(row(2)); // raised meanwhile
    worker.wake();
    timers.advance(0);
    await flush();
    expect(sent).toEqual([1]);
    release();
    await flush();
    await flush();
    timers.advance(0); // no interval wait
    await flush();
    await flush();
    expect(sent).toEqual([1, 2]);
    await worker.stop();
  });

  it('takes the next batch at once when a tick filled its batch', async () => {
    const timers = manualTimeoutProvider();
    const rows = Array.from(
      { length: 5 },
      (_, i): DueDelivery => ({
        id: i + 1,
        attempts: 0,
        channel: { type: 'discord', config: {} },
        secret: null,
        message: {
          eventType: 'x',
          severity: 'info',
          title: 't',
          message: 'm',
          occurredAt: 'now',
          host: 'nas',
        },
      }),
    );
    let sent = 0;
    const worker = new DeliveryWorker({
      store: { due: (_now, limit) => rows.splice(0, limit), record: () => {} },
      send: async () => {
        sent++;
        return { success: true };
      },
      clock: fixedClock('2026-11-22T09:00:00.000Z'),
      timers,
      batchSize: 2,
    });
    const flush = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    worker.start();
    for (let i = 0; i < 4; i++) {
      timers.advance(0);
      await flush();
    }
    expect(sent).toBe(5);
    await worker.stop();
  });

  it('keeps running when a tick fails as a whole', async () => {
    const timers = manualTimeoutProvider();
    const errors: unknown[] = [];
    const worker = new DeliveryWorker({
      store: {
        due: () => {
          throw new Error('database is gone');
        },
        record: () => {},
      },
      send: createChannelSender(),
      clock: fixedClock('2026-11-22T09:00:00.000Z'),
      timers,
      onError: (e) => errors.push(e),
    });
    worker.start();
    timers.advance(0);
    await new Promise((r) => setImmediate(r));
    expect(errors).toHaveLength(1);
    expect(timers.scheduled).toBe(1);
    await worker.stop();
  });
});
