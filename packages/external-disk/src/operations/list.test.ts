import type { InventoryReadOptions } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { entry, inventory, row } from '../test-support/fixtures.ts';
import { MemoryStore } from '../test-support/memory-store.ts';
import { listExternal } from './list.ts';

describe('listExternal', () => {
  it('reads the inventory reusing the probes of unchanged disks, and lists rows then candidates', async () => {
    const reads: (InventoryReadOptions | undefined)[] = [];
    const store = new MemoryStore();
    store.rows.push(row({ id: 1, label: 'backup', serial: 'SER-sdb' }));
    const listed = await listExternal({
      inventory: {
        read: async (options) => {
          reads.push(options);
          return inventory([entry({ device: '/dev/sdb' }), entry({ device: '/dev/sdc', label: 'spare' })]);
        },
      },
      store,
    });
    expect(reads).toEqual([{ reuseProbes: true }]);
    expect(listed.map((d) => [d.label, d.device, d.registered])).toEqual([
      ['backup', '/dev/sdb', true],
      ['spare', '/dev/sdc', false],
    ]);
  });
});
