import { packageConfig } from '../../vitest.shared.ts';

// Browser tests drive Debian's chromium against the real service: one file at a time.
export default packageConfig({ fileParallelism: false, testTimeout: 180_000, hookTimeout: 300_000 });
