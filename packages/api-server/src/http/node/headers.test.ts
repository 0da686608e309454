import { beforeAll, describe, expect, it } from 'vitest';
import { LightHeaders } from './headers.ts';

// undici's Headers, the standard's reference: reachable through fetch() even where the light classes
// are the globals (the package's tests install them).
let Real: typeof Headers;
beforeAll(async () => {
  Real = (await fetch('data:,x')).headers.constructor as typeof Headers;
});

type H = Pick<Headers, 'append' | 'set' | 'delete' | 'get' | 'has' | 'getSetCookie' | 'entries'>;
const script = (h: H) => {
  h.append('X-B', ' two ');
  h.append('x-b', 'three');
  h.set('Content-Type', 'application/json');
  h.append('Set-Cookie', 'a=1');
  h.append('set-cookie', 'b=2');
  h.append('a-first', '\tx\t');
  h.delete('X-Missing');
  return {
    entries: [...h.entries()],
    get: [h.get('x-b'), h.get('SET-COOKIE'), h.get('nope'), h.get('A-First')],
    has: [h.has('content-type'), h.has('nope')],
    cookies: h.getSetCookie(),
  };
};

describe('LightHeaders', () => {
  it('behaves as the standard Headers: case, combining, trimming, Set-Cookie apart, sorted iteration', () => {
    expect(script(new LightHeaders())).toEqual(script(new Real()));
  });

  it('takes the same inits: pairs, records (arrays too), another Headers, undici Headers', () => {
    const inits = [
      [
        ['b', '2'],
        ['a', '1'],
        ['a', '3'],
      ],
      { b: '2', A: '1' },
    ] as const;
    for (const init of inits)
      expect([...new LightHeaders(init as never)]).toEqual([...new Real(init as never)]);
    expect([...new LightHeaders({ 'set-cookie': ['x=1', 'y=2'] })]).toEqual([
      ['set-cookie', 'x=1'],
      ['set-cookie', 'y=2'],
    ]);
    const light = new LightHeaders({ k: 'v' });
    expect([...new LightHeaders(light)]).toEqual([['k', 'v']]);
    expect([...new LightHeaders(new Real({ k: 'v' }))]).toEqual([['k', 'v']]);
  });

  it('refuses what the standard refuses, with a TypeError', () => {
    for (const make of [() => new LightHeaders(), () => new Real()]) {
      expect(() => make().set('bad name', 'v')).toThrow(TypeError);
      expect(() => make().append('k', 'a\r\nInjected: 1')).toThrow(TypeError);
      expect(() => make().get('bad name')).toThrow(TypeError);
    }
    expect(() => new LightHeaders([['only-one']] as never)).toThrow(TypeError);
  });

  it("reads a request's parsed headers in place, and copies them at the first change", () => {
    const node = { host: 'box', 'x-list': 'a, b', 'set-cookie': ['c=1', 'd=2'] };
    const h = LightHeaders.fromNode(node);
    expect(h.get('HOST')).toBe('box');
    expect(h.get('set-cookie')).toBe('c=1, d=2');
    expect(h.get('missing')).toBeNull();
    h.set('host', 'other');
    expect(node.host).toBe('box');
    expect([...h]).toEqual([
      ['host', 'other'],
      ['set-cookie', 'c=1'],
      ['set-cookie', 'd=2'],
      ['x-list', 'a, b'],
    ]);
  });

  it('gives Node its header object and whether a length is set', () => {
    const h = new LightHeaders([
      ['Content-Length', '3'],
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(h.toNode()).toEqual({
      headers: { 'content-length': '3', 'set-cookie': ['a=1', 'b=2'] },
      hasLength: true,
    });
    expect(new LightHeaders({ a: 'b' }).toNode().hasLength).toBe(false);
  });
});
