import type { Authenticator, Passwords } from '@appliance/accounts';
import { feature as apps } from './apps/index.ts';
import { auditFeature } from './audit/index.ts';
import { feature as backups } from './backups/index.ts';
import { feature as certificates } from './certificates/index.ts';
import { configArchiveFeature } from './config-archive/index.ts';
import { feature as disks } from './disks/index.ts';
import { docsFeature } from './docs/index.ts';
import { eventsFeature } from './events/index.ts';
import { feature as externalDisks } from './external-disks/index.ts';
import type { Feature } from './feature.ts';
import { jobsFeature } from './jobs/index.ts';
import { feature as mover } from './mover/index.ts';
import { feature as notifications } from './notifications/index.ts';
import { feature as parity } from './parity/index.ts';
import { settingsFeature } from './settings/index.ts';
import { setupFeature } from './setup/index.ts';
import { sessionFeature } from './session/index.ts';
import { feature as shareData } from './share-data/index.ts';
import { feature as shares } from './shares/index.ts';
import { tokensFeature } from './tokens/index.ts';
import { updatesFeature } from './updates/index.ts';
import { userGroupsFeature } from './user-groups/index.ts';
import { usersFeature } from './users/index.ts';
import { feature as watchers } from './watchers/index.ts';

/** Every feature of the server, in registration order. The API document lists them all. */
export function allFeatures(auth: Authenticator, passwords: Passwords, version: string): Feature[] {
  const features: Feature[] = [
    setupFeature(auth),
    tokensFeature(auth),
    sessionFeature(auth),
    usersFeature(passwords),
    userGroupsFeature,
    settingsFeature,
    auditFeature,
    jobsFeature,
    eventsFeature(auth),
    notifications,
    shares,
    shareData,
    disks,
    parity,
    mover,
    externalDisks,
    backups,
    apps,
    configArchiveFeature(auth),
    watchers,
    updatesFeature(version),
    certificates,
  ];
  const docs = docsFeature(() => features.flatMap((f) => f.routes), version);
  return [...features, docs];
}
