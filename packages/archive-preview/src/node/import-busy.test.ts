/** The import's refusal while its lock is taken: a running job named, or the generic one. */
import { describe, expect, it } from 'vitest';
import { importBusy } from './import-input.ts';

describe('importBusy', () => {
  it('names a running job (job_running) and how to follow or cancel it', () => {
    const err = importBusy({ id: 'j1', type: 'parity.sync', target: '/mnt/parity1', cancellable: true });
    expect(err.code).toBe('job_running');
    expect(err.message).toContain('The parity.sync job is running (/mnt/parity1)');
    expect(err.message).toContain('DELETE /api/v1/jobs/j1');
    expect(err.details).toMatchObject({ jobId: 'j1', type: 'parity.sync', target: '/mnt/parity1' });
  });

  it('without a job: operations_running', () => {
    expect(importBusy(null).code).toBe('operations_running');
  });
});
