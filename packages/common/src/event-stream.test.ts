import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from './errors.ts';
import { EventBus } from './event-bus.ts';
import { credentialStillValid, pumpEvents, type SseSink, StreamSlots } from './event-stream.ts';

function sink() {
  const written: string[] = [];
  let abort = () => {};
  const s: SseSink = {
    write: async (text) => written.push(text),
    writeSSE: async (m) => written.push(`${m.event}${m.id ? `#${m.id}` : ''} ${m.data}`),
    onAbort: (l) => {
      abort = l;
    },
  };
  return { s, written, abort: () => abort() };
}

const tick = () => vi.advanceTimersByTimeAsync(0);

describe('pumpEvents', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes notifications with their id and progress, pings, and unsubscribes when the client leaves', async () => {
    const bus = new EventBus();
    const { s, written, abort } = sink();
    const done = pumpEvents(s, { subscribe: (l) => bus.subscribe(l), pingMs: 1000, stillValid: () => true });
    await tick();
    bus.publish({ type: 'notification', id: 7, data: { title: 'T' } });
    bus.publish({
      type: 'progress',
      data: { operationId: 'o', operation: 'x', target: 't', done: true, progress: {} },
    });
    await tick();
    await vi.advanceTimersByTimeAsync(1000);
    expect(written).toEqual([
      ': connected\n\n',
      'notification#7 {"title":"T"}',
      'progress {"operationId":"o","operation":"x","target":"t","done":true,"progress":{}}',
      ': ping\n\n',
    ]);
    expect(bus.subscribers).toBe(1);
    abort();
    await done;
    expect(bus.subscribers).toBe(0);
  });

  it('ends the stream at the first ping after the credential is gone', async () => {
    const bus = new EventBus();
    let valid = true;
    const { s, written } = sink();
    const done = pumpEvents(s, { subscribe: (l) => bus.subscribe(l), pingMs: 1000, stillValid: () => valid });
    await vi.advanceTimersByTimeAsync(1000);
    valid = false;
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(written).toEqual([': connected\n\n', ': ping\n\n']);
    expect(bus.subscribers).toBe(0);
  });
});

describe('StreamSlots', () => {
  it('refuses the stream past the cap with too_busy (503) until one closes', () => {
    const slots = new StreamSlots(2);
    const first = slots.open();
    slots.open();
    const refused = (() => {
      try {
        slots.open();
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 503, code: 'too_busy' });
    first();
    expect(() => slots.open()).not.toThrow();
  });
});

describe('credentialStillValid', () => {
  const checks = {
    session: (secret: string) => secret === 'open',
    bearer: (token: string) => {
      if (token !== 'good') throw new Error('revoked');
    },
  };
  it('re-checks the session cookie first, then a Bearer token; anything else ends the stream', () => {
    expect(credentialStillValid('', 'open', checks)).toBe(true);
    expect(credentialStillValid('', 'closed', checks)).toBe(false);
    expect(credentialStillValid('Bearer  good ', null, checks)).toBe(true);
    expect(credentialStillValid('bearer good', null, checks)).toBe(true);
    expect(credentialStillValid('Bearer revoked', null, checks)).toBe(false);
    expect(credentialStillValid('Basic YWRtaW46eA==', null, checks)).toBe(false);
    expect(credentialStillValid('', null, checks)).toBe(false);
  });
});
