// Shared vitest settings: source-condition resolution of workspace packages and a JSON report
// per package (summed by tools/test-summary.mjs into the closing "N passed, N failed" line).
import { defineConfig, type ViteUserConfig } from 'vitest/config';

export function packageConfig(overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions: ['@appliance/source'] },
    ssr: { resolve: { conditions: ['@appliance/source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      reporters: ['default', ['json', { outputFile: '.reports/vitest.json' }]],
      passWithNoTests: true,
      testTimeout: 60_000,
      hookTimeout: 120_000,
      ...overrides,
    },
  });
}
