import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startChallengeServer } from './challenge-server.ts';

describe('the HTTP-01 responder', () => {
  it('answers a token of a running order, 404 for anything else, and closes', async () => {
    const responder = await startChallengeServer({ host: '127.0.0.1', port: 0 });
    const { port } = responder.server.address() as AddressInfo;
    const url = (p: string) => `http://127.0.0.1:${port}${p}`;
    try {
      responder.set('tok1', 'tok1.thumbprint');
      const hit = await fetch(url('/.well-known/acme-challenge/tok1'));
      expect([hit.status, await hit.text()]).toEqual([200, 'tok1.thumbprint']);
      expect((await fetch(url('/.well-known/acme-challenge/other'))).status).toBe(404);
      expect((await fetch(url('/'))).status).toBe(404);
      responder.remove('tok1');
      expect((await fetch(url('/.well-known/acme-challenge/tok1'))).status).toBe(404);
    } finally {
      await responder.close();
    }
    expect(responder.server.listening).toBe(false);
  });

  it('rejects when the port cannot be bound', async () => {
    const first = await startChallengeServer({ host: '127.0.0.1', port: 0 });
    const { port } = first.server.address() as AddressInfo;
    try {
      await expect(startChallengeServer({ host: '127.0.0.1', port })).rejects.toMatchObject({
        code: 'EADDRINUSE',
      });
    } finally {
      await first.close();
    }
  });
});
