import type { Register } from '../framework/command.ts';
import { register as apps } from './apps/index.ts';
import { register as audit } from './audit/index.ts';
import { register as backups } from './backups/index.ts';
import { register as configArchive } from './config-archive/index.ts';
import { register as disks } from './disks/index.ts';
import { register as doctor } from './doctor/index.ts';
import { register as events } from './events/index.ts';
import { register as externalDisks } from './external-disks/index.ts';
import { register as jobs } from './jobs/index.ts';
import { register as mover } from './mover/index.ts';
import { register as health } from './health/index.ts';
import { register as notifications } from './notifications/index.ts';
import { register as parity } from './parity/index.ts';
import { register as serve } from './serve/index.ts';
import { register as setup } from './setup/index.ts';
import { register as shareData } from './share-data/index.ts';
import { register as shares } from './shares/index.ts';
import { register as tokens } from './tokens/index.ts';
import { register as updates } from './updates/index.ts';
import { register as users } from './users/index.ts';

/** Every feature's commands, in help order (one folder per feature, as the server's routes). */
export const features: Register[] = [
  serve,
  doctor,
  setup,
  tokens,
  users,
  shares,
  shareData,
  disks,
  parity,
  mover,
  jobs,
  externalDisks,
  backups,
  notifications,
  apps,
  configArchive,
  events,
  audit,
  health,
  updates,
];
