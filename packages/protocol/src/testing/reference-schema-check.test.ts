import { describe, expect, it } from 'vitest';
import { referenceSchemaCheck } from './reference-schema-check.js';

const DIRECTORY = '/nowhere/kafka-spec/messages';

describe('referenceSchemaCheck', () => {
  it('runs the comparison when the reference folder exists, in CI or not', () => {
    expect(referenceSchemaCheck(DIRECTORY, true, {})).toEqual({ kind: 'run' });
    expect(referenceSchemaCheck(DIRECTORY, true, { CI: 'true' })).toEqual({ kind: 'run' });
  });

  it.each([{}, { CI: '' }, { CI: 'false' }, { CI: '0' }])(
    'skips with a one-line notice naming the folder outside CI (%j)',
    (environment) => {
      const check = referenceSchemaCheck(DIRECTORY, false, environment);
      expect(check).toEqual({
        kind: 'skip',
        notice: `reference-schema comparison skipped: no Kafka reference schemas at ${DIRECTORY} (KRAFT_KAFKA_SPEC=<folder> points elsewhere)`,
      });
      expect((check as { notice: string }).notice).not.toContain('\n');
    },
  );

  it.each([{ CI: 'true' }, { CI: '1' }, { CI: 'TRUE' }])('fails under CI (%j)', (environment) => {
    const check = referenceSchemaCheck(DIRECTORY, false, environment);
    expect(check.kind).toBe('fail');
    expect((check as { reason: string }).reason).toContain(DIRECTORY);
  });
});
