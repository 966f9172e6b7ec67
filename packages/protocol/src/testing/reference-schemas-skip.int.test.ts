import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..', '..', '..');
// The comparisons of this package's messages and of @kraft/metadata's records share the check.
const COMPARISONS = [
  'packages/protocol/src/testing/reference-schemas.test.ts',
  'packages/metadata/src/records/reference-schemas.test.ts',
];

/** Runs the comparison as `pnpm test` would, with the reference folder moved out of reach. */
function runComparisonWithoutReference(comparison: string, ci: string | undefined) {
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    KRAFT_KAFKA_SPEC: '/nonexistent/kafka-spec',
    NO_COLOR: '1',
  };
  delete environment['CI'];
  if (ci !== undefined) environment['CI'] = ci;
  return spawnSync(
    process.execPath,
    [join(REPOSITORY_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'unit', comparison],
    { cwd: REPOSITORY_ROOT, env: environment, encoding: 'utf8' },
  );
}

describe.each(COMPARISONS)(
  'the reference-schema comparison %s without the reference folder',
  (comparison) => {
    it('says so in one line and skips on a developer machine', () => {
      const result = runComparisonWithoutReference(comparison, undefined);
      const output = `${result.stdout}${result.stderr}`;
      expect(result.status, output).toBe(0);
      const notices = output
        .split('\n')
        .filter((line) => line.includes('reference-schema comparison skipped'));
      expect(notices).toEqual([
        'reference-schema comparison skipped: no Kafka reference schemas at /nonexistent/kafka-spec (KRAFT_KAFKA_SPEC=<folder> points elsewhere)',
      ]);
    });

    it('fails under CI=true instead of skipping', () => {
      const result = runComparisonWithoutReference(comparison, 'true');
      const output = `${result.stdout}${result.stderr}`;
      expect(result.status, output).toBe(1);
      expect(output).toContain('CI must compare the declarations with them');
    });
  },
);
