/** The appliance's watchers, each over the ports it reads its facts through. */
import type { WatcherDefinition } from '../runner.ts';
import { certificateWatcher } from './certificate.ts';
import { disksWatcher } from './disks.ts';
import { containersWatcher, imagesWatcher } from './docker.ts';
import { driftWatcher } from './drift.ts';
import type { WatcherFactsPorts } from './ports.ts';
import { smartWatcher } from './smart.ts';
import { spaceWatcher } from './space.ts';
import { upsWatcher } from './ups.ts';

export { certificateWatcher, servedCertificate } from './certificate.ts';
export { disksWatcher } from './disks.ts';
export { containersWatcher, imagesWatcher } from './docker.ts';
export { driftWatcher } from './drift.ts';
export type * from './ports.ts';
export { HISTORY_ROWS_PER_DISK } from './ports.ts';
export { modelFromById, type Observed, observeSlots, slotIdentity } from './slots.ts';
export { smartWatcher } from './smart.ts';
export { spaceFacts, spaceWatcher } from './space.ts';
export { upsConfigured, upsWatcher } from './ups.ts';

/** Every watcher of the appliance, in the order a service registers them. */
export function applianceWatchers(ports: WatcherFactsPorts): WatcherDefinition[] {
  return [
    disksWatcher(ports),
    spaceWatcher(ports),
    smartWatcher(ports),
    driftWatcher(ports),
    certificateWatcher(ports),
    containersWatcher(ports),
    imagesWatcher(ports),
    upsWatcher(ports),
  ];
}
