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
    const options = sambaServiceOptions(
      host({ root: dir, sandbox: false, smbConf: file, poolDir: path.join(dir, 'pool') }),
      { runner: createCommandRunner(), loadSnapshot: () => snapshot, log: () => undefined },
    );
    let recorded = 0;
    const samba = sambaServiceFor(options, () => recorded++);
    await samba.start();
    expect(recorded).toBe(1);
    expect(await fs.readFile(file, 'utf8')).not.toContain('[media]');
    snapshot = { ...empty, shares: [{ name: 'media', smb: { enabled: true, browseable: true } }] };
    await samba.regenerate();
    expect(recorded).toBe(2);
    expect(await fs.readFile(file, 'utf8')).toContain('[media]');
    samba.reload();
    await samba.stop();
  });
});
