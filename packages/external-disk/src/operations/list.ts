import { listExternalDisks } from '../core/list.ts';
import type { ExternalDisk } from '../core/types.ts';
import type { ExternalDiskDeps } from '../ports.ts';

/**
 * `GET /disks/external`: reads the inventory and the rows only; mounts and probes nothing. A
 * listing reuses the probes of unchanged disks (docs/decisions/performance.md); register and
 * format read a fully fresh inventory.
 */
export async function listExternal(
  deps: Pick<ExternalDiskDeps, 'inventory' | 'store'>,
): Promise<ExternalDisk[]> {
  const [inventory, rows, slots] = await Promise.all([
    deps.inventory.read({ reuseProbes: true }),
    deps.store.listRows(),
    deps.store.listArraySlots(),
  ]);
  return listExternalDisks(inventory, rows, slots);
}
