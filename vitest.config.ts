import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the `@kraft/source` export
// condition, so a test run never waits on builds. Node tests resolve in SSR mode, hence both keys.
const sourceConditions = ['@kraft/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    reporters: ['default', './tooling/vitest/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{packages,apps,tooling,examples}/*/{src,test}/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.sim.test.ts', '**/*.int.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'sim',
          include: ['{packages,apps}/*/{src,test}/**/*.sim.test.ts'],
          testTimeout: 1_800_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['{packages,apps,tooling,examples}/*/{src,test}/**/*.int.test.ts'],
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
