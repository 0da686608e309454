import { listExternalDisks } from '../core/list.ts';
import type { ExternalDisk } from '../core/types.ts';
import type { ExternalDiskDeps } from '../ports.ts';

/** `GET /disks/external`: reads the inventory and the rows only; mounts and probes nothing. */
export async function listExternal(
  deps: Pick<ExternalDiskDeps, 'inventory' | 'store'>,
): Promise<ExternalDisk[]> {
  const [inventory, rows, slots] = await Promise.all([
    deps.inventory.read(),
    deps.store.listRows(),
    deps.store.listArraySlots(),
  ]);
  return listExternalDisks(inventory, rows, slots);
}
