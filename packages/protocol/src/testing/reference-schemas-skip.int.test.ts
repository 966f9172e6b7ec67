import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const COMPARISON = 'packages/protocol/src/testing/reference-schemas.test.ts';

/** Runs the comparison as `pnpm test` would, with the reference folder moved out of reach. */
function runComparisonWithoutReference(ci: string | undefined) {
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    KRAFT_KAFKA_SPEC: '/nonexistent/kafka-spec',
    NO_COLOR: '1',
  };
  delete environment['CI'];
  if (ci !== undefined) environment['CI'] = ci;
  return spawnSync(
    process.execPath,
    [join(REPOSITORY_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'unit', COMPARISON],
    { cwd: REPOSITORY_ROOT, env: environment, encoding: 'utf8' },
  );
}

describe('the reference-schema comparison without the reference folder', () => {
  it('says so in one line and skips on a developer machine', () => {
    const result = runComparisonWithoutReference(undefined);
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status, output).toBe(0);
    const notices = output.split('\n').filter((line) => line.includes('reference-schema comparison skipped'));
    expect(notices).toEqual([
      'reference-schema comparison skipped: no Kafka reference schemas at /nonexistent/kafka-spec (KRAFT_KAFKA_SPEC=<folder> points elsewhere)',
    ]);
  });

  it('fails under CI=true instead of skipping', () => {
    const result = runComparisonWithoutReference('true');
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status, output).toBe(1);
    expect(output).toContain('CI must compare the declarations with them');
  });
});
