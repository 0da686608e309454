/**
 * apt against a private repository and root (test-support): never this machine's dpkg database.
 */
import { createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AptLab, createAptLab } from '../test-support/index.ts';
import { applyUpgrade, checkUpdates, dpkgAudit } from './apt.ts';

describe('apt on a private root', () => {
  let lab: AptLab;
  beforeAll(async () => {
    await requirePrerequisites({ tools: ['apt-get', 'dpkg-deb', 'dpkg-scanpackages'] });
    lab = await createAptLab();
    await lab.publish('demo-tool', '1.0');
    await lab.aptGet('-q', 'update');
    await lab.aptGet('-y', '-q', 'install', 'demo-tool=1.0');
  });
  afterAll(async () => {
    await lab?.destroy();
  });

  it('checks, applies version 2, and reports a failing postinst of version 3 with dpkg’s state', async () => {
    const deps = { runner: createCommandRunner(), aptConfig: lab.aptConfig };
    expect(await lab.installed('demo-tool')).toBe('1.0');
    expect((await checkUpdates(deps)).packages).toEqual([]);

    await lab.publish('demo-tool', '2.0');
    const check = await checkUpdates(deps);
    expect(check.packages).toMatchObject([{ name: 'demo-tool', from: '1.0', to: '2.0', security: false }]);
    const percents: number[] = [];
    const applied = await applyUpgrade(deps, { onProgress: (p) => percents.push(p.percent) });
    expect(applied).toMatchObject({ ok: true, upgraded: [{ name: 'demo-tool', to: '2.0' }] });
    expect(percents.length).toBeGreaterThan(0);
    expect(await lab.installed('demo-tool')).toBe('2.0');
    expect(lab.payload('demo-tool')).toBe('2.0');
    expect((await dpkgAudit(deps)).clean).toBe(true);

    await lab.publish('demo-tool', '3.0', { failingPostinst: true });
    expect((await checkUpdates(deps)).packages).toMatchObject([
      { name: 'demo-tool', from: '2.0', to: '3.0' },
    ]);
    const failed = await applyUpgrade(deps);
    expect(failed).toMatchObject({
      ok: false,
      errorLine:
        'demo-tool: installed demo-tool package post-installation script subprocess returned error exit status 1',
      dpkgClean: false,
      brokenPackages: ['demo-tool'],
      remedy: 'dpkg --configure -a && apt-get -f install',
    });
  });
});
