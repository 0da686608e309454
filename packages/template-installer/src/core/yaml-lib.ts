/**
 * The `yaml` library, loaded on its first use rather than when the package is imported, so that a
 * service that only lists its routes at start does not parse ~280 KiB of parser it may never run
 * (docs/decisions/performance.md, "Start-up"). Loading code is not I/O: the core stays pure.
 */
import { createRequire } from 'node:module';
import { onFirstUse } from '@appliance/common';
import type * as Yaml from 'yaml';

export const yaml = onFirstUse(() => createRequire(import.meta.url)('yaml') as typeof Yaml);
