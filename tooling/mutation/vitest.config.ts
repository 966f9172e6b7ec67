import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The test run StrykerJS drives (`pnpm mutation`): the unit tier of the packages it mutates, with
// the simulator's smoke seeds as its small tier. Left out, because each covers nearly every raft
// mutant and a surviving mutant runs every test that covers it: the simulator's long tier
// (`*.sim.test.ts`, minutes), its regression seeds and CLI runs and the replicated-counter fault
// runs (10 s per mutant on two loaded cores), and src/io (the driver, not the consensus rules).
// Same source conditions as the root config, so no build is needed.
const sourceConditions = ['@kraft/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: 'unit',
    include: ['packages/{raft,records,log}/{src,test}/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      '**/*.sim.test.ts',
      '**/*.int.test.ts',
      'packages/raft/test/simulation/simulation-regressions.test.ts',
      'packages/raft/test/simulation/simulation-cli.test.ts',
      'packages/raft/test/testing/replicated-counter-under-faults.test.ts',
      'packages/raft/src/io/**',
    ],
    testTimeout: 60_000,
  },
});
