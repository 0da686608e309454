/** /proc/net, render devices, the render group, the host zone and the compose tool, for real. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, createHostPaths } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComposeTool, maskOutput } from './compose-tool.ts';
import { readHostZone, readRenderDevices, readRenderGroup } from './host-facts.ts';
import { parseProcNetTable, readHostSocketPorts } from './proc-net.ts';

let tmp: string;
beforeAll(async () => {
  await requirePrerequisites({ tools: ['docker-compose'] });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'host-adapters-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('/proc/net', () => {
  it('sees a loopback TCP listener and a bound UDP socket of this process', async () => {
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as net.AddressInfo).port;
    const dgram = await import('node:dgram');
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    try {
      const ports = await readHostSocketPorts('/proc');
      expect(ports.has(port)).toBe(true);
      expect(ports.has(sock.address().port)).toBe(true);
    } finally {
      srv.close();
      sock.close();
    }
  });
  it('counts only LISTEN (0A) TCP rows and state 07 UDP rows', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000',
      '   1: 0100007F:1F91 0100007F:D431 01 00000000:00000000',
    ].join('\n');
    expect(parseProcNetTable(table, 'tcp')).toEqual([8080]);
    expect(parseProcNetTable(table.replace(' 0A ', ' 07 '), 'udp')).toEqual([8080]);
  });
  it('an unreadable required table is 500 internal; missing tcp6/udp6 are fine', async () => {
    fs.mkdirSync(path.join(tmp, 'proc/net'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'proc/net/tcp'), 'header\n   0: 00000000:0016 00000000:0000 0A x\n');
    await expect(readHostSocketPorts(path.join(tmp, 'proc'))).rejects.toMatchObject({
      status: 500,
      code: 'internal',
    });
    fs.writeFileSync(path.join(tmp, 'proc/net/udp'), 'header\n');
    expect([...(await readHostSocketPorts(path.join(tmp, 'proc')))]).toEqual([22]);
  });
});

describe('GPU and time zone facts through the host root', () => {
  it('lists render devices sorted by number and reads the render group', async () => {
    const root = path.join(tmp, 'host');
    fs.mkdirSync(path.join(root, 'dev/dri'), { recursive: true });
    fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
    for (const f of ['renderD129', 'card0', 'renderD128', 'renderD1000'])
      fs.writeFileSync(path.join(root, 'dev/dri', f), '');
    fs.writeFileSync(path.join(root, 'etc/group'), 'video:x:44:\nrender:x:993:alice\n');
    const paths = createHostPaths({ root, hostRoot: root });
    expect(await readRenderDevices(paths)).toEqual([
      '/dev/dri/renderD128',
      '/dev/dri/renderD129',
      '/dev/dri/renderD1000',
    ]);
    expect(await readRenderGroup(paths)).toBe(993);
    fs.writeFileSync(path.join(root, 'etc/group'), 'video:x:44:\n');
    expect(await readRenderGroup(paths)).toBeNull();
    expect(await readRenderDevices(createHostPaths({ root, hostRoot: path.join(tmp, 'nothing') }))).toEqual(
      [],
    );
  });
  it('reads /etc/timezone, else the /etc/localtime link target', async () => {
    const root = path.join(tmp, 'tz');
    fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
    const paths = createHostPaths({ root, hostRoot: root });
    expect(await readHostZone(paths)).toBeNull();
    fs.symlinkSync('/usr/share/zoneinfo/America/New_York', path.join(root, 'etc/localtime'));
    expect(await readHostZone(paths)).toBe('America/New_York');
    fs.writeFileSync(path.join(root, 'etc/timezone'), 'Europe/Vienna\n');
    expect(await readHostZone(paths)).toBe('Europe/Vienna');
  });
});

describe('the compose tool', () => {
  const tool = createComposeTool(createCommandRunner(), process.env);
  it('detects the installed tool and remembers it', async () => {
    const info = await tool.detect();
    expect(['v1', 'v2']).toContain(info.flavour);
    expect(await tool.detect()).toBe(info);
  });
  it('a missing tool is 503 compose_unavailable naming the package', async () => {
    const none = createComposeTool(createCommandRunner({ path: '/nonexistent' }), { PATH: '/nonexistent' });
    const e = await none.detect().catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 503, code: 'compose_unavailable' });
    expect((e as Error).message).toContain('docker-compose');
  });
  it('the config check refuses a broken file with masked, logical output', async () => {
    const dir = path.join(tmp, 'stack');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'docker-compose.yml'),
      'services:\n  a:\n    image: x\n    environment: {P: "${P}"}\n    ports: "bad"\n',
    );
    fs.writeFileSync(path.join(dir, '.env'), 'P=s3cr3tvalue\n');
    const e = await tool
      .check({ name: 'broken', dir }, { secrets: ['s3cr3tvalue'], root: tmp })
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 400, code: 'invalid_stack', details: { stack: 'broken' } });
    const output = (e as { details: { output: string } }).details.output;
    expect(output.length).toBeGreaterThan(0);
    expect(output).not.toContain('s3cr3tvalue');
    expect(output).not.toContain(tmp);
  });
  it('masks secrets and the root, and caps the output at 4 KiB', () => {
    expect(maskOutput('/sbx/var/x pw=abc', { secrets: ['abc'], root: '/sbx' })).toBe('/var/x pw=***');
    expect(Buffer.byteLength(maskOutput('é'.repeat(5000), { secrets: [], root: '' }))).toBeLessThanOrEqual(
      4096,
    );
  });
});
