import { beforeAll, describe, expect, it } from 'vitest';
import { LightResponse } from './response.ts';

let Real: typeof Response;
beforeAll(async () => {
  Real = (await fetch('data:,x')).constructor as typeof Response;
});

const shape = async (r: Response | LightResponse) => ({
  status: r.status,
  ok: r.ok,
  statusText: r.statusText,
  headers: [...r.headers],
  text: await r.text(),
  used: r.bodyUsed,
});

describe('LightResponse', () => {
  it('answers as the standard Response for the bodies the service builds', async () => {
    const cases: Array<[unknown, ResponseInit | undefined]> = [
      ['plain', undefined],
      ['{"a":1}', { status: 201, headers: { 'Content-Type': 'application/json' } }],
      [new Uint8Array([104, 105]), { status: 404, statusText: 'Gone away' }],
      [new URLSearchParams({ a: 'b c' }), undefined],
      [null, { status: 204 }],
      [new Blob(['blob'], { type: 'text/x-blob' }), undefined],
    ];
    for (const [body, init] of cases)
      expect(await shape(new LightResponse(body, init as never))).toEqual(
        await shape(new Real(body as never, init)),
      );
  });

  it('streams: body as a web stream, a stream given as the body read back whole', async () => {
    const r = new LightResponse('abc');
    const reader = r.body!.getReader();
    const chunks: number[] = [];
    for (let c = await reader.read(); !c.done; c = await reader.read()) chunks.push(...c.value);
    expect(Buffer.from(chunks).toString()).toBe('abc');
    const s = new LightResponse(new Blob(['x', 'y']).stream());
    expect(await s.text()).toBe('xy');
  });

  it('json(), clone() and a body read once', async () => {
    const r = LightResponse.json({ a: [1] }, { status: 202 });
    expect(r.headers.get('content-type')).toBe('application/json');
    const copy = r.clone();
    expect(await r.json()).toEqual({ a: [1] });
    expect(await copy.text()).toBe('{"a":[1]}');
    await expect(r.text()).rejects.toThrow(TypeError);
    expect(LightResponse.redirect('http://x/y', 307).headers.get('location')).toBe('http://x/y');
  });

  it('refuses what the standard refuses', () => {
    for (const R of [LightResponse, Real] as Array<new (b?: unknown, i?: ResponseInit) => unknown>) {
      expect(() => new R('x', { status: 99 })).toThrow(RangeError);
      expect(() => new R('x', { status: 204 })).toThrow(TypeError);
    }
    expect(() => new LightResponse(new FormData())).toThrow(/FormData/);
  });
});
