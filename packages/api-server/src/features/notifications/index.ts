import type { Feature } from '../feature.ts';

/** Routes of this feature (see packages/api-server/FEATURES.md). */
export const feature: Feature = { name: 'notifications', routes: [] };
