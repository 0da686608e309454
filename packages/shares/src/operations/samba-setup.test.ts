/**
 * Which Samba a service drives from its host facts, the sandbox layout and `[global]` lines, and a
 * service in mode `none` run for real: smb.conf written (validated by testparm) at the start and on
 * each regeneration, recorded each time.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccessSnapshot } from '../access/core/effective-access.ts';
import {
  renderSmbConfFor,
  type SambaHost,
  sambaGlobalsOf,
  sambaLayoutOf,
  sambaModeOf,
  sambaServiceFor,
  sambaServiceOptions,
} from './samba-setup.ts';

const host = (over: Partial<SambaHost> = {}): SambaHost => ({
  root: '/srv/box',
  sandbox: true,
  port: 4450,
  real: (logical) => `/srv/box${logical}`,
  smbConf: '/srv/box/etc/samba/smb.conf',
  poolDir: '/srv/box/mnt/user',
  ...over,
});

describe('sambaModeOf / sambaLayoutOf / sambaGlobalsOf', () => {
  it('no root prefix: the machine’s smbd, no layout, no extra globals', () => {
    const h = host({ root: '', sandbox: true });
    expect([sambaModeOf(h), sambaLayoutOf(h), sambaGlobalsOf(h)]).toEqual(['host', null, undefined]);
  });

  it('a root prefix without samba.sandbox: none (written and validated, nothing reads it)', () => {
    const h = host({ sandbox: false });
    expect([sambaModeOf(h), sambaLayoutOf(h), sambaGlobalsOf(h)]).toEqual(['none', null, undefined]);
  });

  it('a sandbox: its own smbd on the loopback port, every directory under the root', () => {
    const h = host();
    expect(sambaModeOf(h)).toBe('sandbox');
    const layout = sambaLayoutOf(h);
    expect(layout).toMatchObject({ port: 4450, smbConf: h.smbConf, poolDir: h.poolDir });
    expect(layout?.pidFile.startsWith('/srv/box/')).toBe(true);
    const globals = new Map(sambaGlobalsOf(h));
    expect(globals.get('smb ports')).toBe('4450');
  });

  it('the service options carry the mode, layout and paths', () => {
    const runner = createCommandRunner();
    const o = sambaServiceOptions(host({ sandbox: false }), {
      runner,
      loadSnapshot: () => empty,
      log: () => undefined,
    });
    expect(o).toMatchObject({ mode: 'none', layout: null, file: host().smbConf, poolDir: host().poolDir });
    expect(o.root).toBe('/srv/box');
  });
});

describe('renderSmbConfFor', () => {
  const media: AccessSnapshot = {
    shares: [{ name: 'media', smb: { enabled: true, browseable: true } }],
    users: [],
    groups: [],
    userGrants: [],
    groupGrants: [],
  };

  it("a sandbox's smb.conf carries its port and the shares under its pooled view", () => {
    const conf = renderSmbConfFor(host(), media);
    expect(conf).toMatch(/smb ports = 4450/);
    expect(conf).toContain('[media]');
    expect(conf).toContain('path = /srv/box/mnt/user/media');
  });

  it("the machine's smb.conf has no sandbox port", () => {
    const conf = renderSmbConfFor(host({ root: '', poolDir: '/mnt/user' }), media);
    expect(conf).not.toMatch(/smb ports/);
    expect(conf).toContain('path = /mnt/user/media');
  });
});

const empty: AccessSnapshot = { shares: [], users: [], groups: [], userGrants: [], groupGrants: [] };

describe('sambaServiceFor (mode none, real testparm)', () => {
  let dir: string;
  beforeEach(async () => {
    await requirePrerequisites({ tools: ['testparm'] });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'samba-setup-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writes smb.conf at the start and on each regeneration, recording each file written', async () => {
    let snapshot: AccessSnapshot = empty;
    const file = path.join(dir, 'smb.conf');
    const h = host({ root: dir, sandbox: false, smbConf: file, poolDir: path.join(dir, 'pool') });
    const options = sambaServiceOptions(h, {
      runner: createCommandRunner(),
      loadSnapshot: () => snapshot,
      log: () => undefined,
    });
    let recorded = 0;
    const samba = sambaServiceFor(options, () => recorded++);
    await samba.start();
    expect(recorded).toBe(1);
    expect(await fs.readFile(file, 'utf8')).not.toContain('[media]');
    snapshot = { ...empty, shares: [{ name: 'media', smb: { enabled: true, browseable: true } }] };
    await samba.regenerate();
    expect(recorded).toBe(2);
    expect(await fs.readFile(file, 'utf8')).toContain('[media]');
    // what a configuration import renders is byte for byte what the service wrote
    expect(renderSmbConfFor(h, snapshot)).toBe(await fs.readFile(file, 'utf8'));
    samba.reload();
    await samba.stop();
  });
});
