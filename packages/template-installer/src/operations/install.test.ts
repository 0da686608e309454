/** The install routes' orchestration on in-memory ports: audit rows, the file recorded, progress. */
import { describe, expect, it } from 'vitest';
import { memoryAppsPorts, memoryStackJobPorts, memoryStacksDeps } from '../test-support/index.ts';
import { auditRecordOf, createHandMadeStack, installTemplate, previewTemplate } from './install.ts';

const ports = () => memoryAppsPorts(memoryStackJobPorts(memoryStacksDeps()));

describe('install operations', () => {
  it('a preview ignores the plan digest (install only)', async () => {
    const p = ports();
    await previewTemplate(p, 'jellyfin', { name: 'tv', planDigest: 'a'.repeat(64) });
    expect(p.stub.calls).toEqual(['preview jellyfin {"name":"tv"}']);
  });

  it('an install records its compose file and publishes its progress, ending with done', async () => {
    const p = ports();
    const { stack } = await installTemplate(p, 'jellyfin', { name: 'tv' });
    expect(stack.name).toBe('tv');
    expect(p.files).toEqual(['/real/stacks/tv/docker-compose.yml']);
    expect(p.audits).toEqual([{ operation: 'template.install', target: 'stacks/tv', outcome: 'ok' }]);
    await expect.poll(() => p.events.length).toBe(2);
    expect(p.events.at(-1)).toMatchObject({ operationId: 'op-1', target: 'tv', done: true });
  });

  it('a hand-made stack is created with its env and its file recorded', async () => {
    const p = ports();
    await createHandMadeStack(p, { name: 'x', compose: 'services: {}', env: { A: '1' } });
    await createHandMadeStack(p, { name: 'y', compose: 'services: {}' });
    expect(p.stub.calls).toEqual(['create x {"A":"1"}', 'create y null']);
    expect(p.files).toEqual(['/real/stacks/x/docker-compose.yml', '/real/stacks/y/docker-compose.yml']);
  });

  it('an audit record that is not ok is failed with its code in details', async () => {
    const p = ports();
    await auditRecordOf(p)({ operation: 'stack.create', target: 'stacks/x', outcome: 'stack_exists' });
    expect(p.audits).toEqual([
      { operation: 'stack.create', target: 'stacks/x', outcome: 'failed', details: { code: 'stack_exists' } },
    ]);
  });
});
