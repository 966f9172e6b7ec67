import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageCodec } from '../schema/message-codec.js';
import { ALL_MESSAGES } from './all-messages.js';
import { referenceSchemaCheck } from './reference-schema-check.js';
import { compareWithReferenceSchema } from './reference-schema-compare.js';

// Checks our declarations field by field against Kafka's reference schemas, read (never copied)
// from the shared kafka-spec folder when this machine has it.
const { KRAFT_KAFKA_SPEC } = process.env;
// The repository's root sits four levels above this folder; the shared folder is beside it.
const REFERENCE_DIRECTORY =
  KRAFT_KAFKA_SPEC ??
  join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'kafka-spec', 'messages');

const check = referenceSchemaCheck(REFERENCE_DIRECTORY, existsSync(REFERENCE_DIRECTORY), process.env);
if (check.kind === 'skip') process.stderr.write(`${check.notice}\n`);
if (check.kind === 'fail') {
  it('finds the Kafka reference schemas', () => {
    throw new Error(check.reason);
  });
}

describe.runIf(check.kind === 'run')('declarations match Kafka reference schemas', () => {
  it.each(ALL_MESSAGES.map((codec) => [codec.name, codec] as const))(
    '%s',
    (name, codec: MessageCodec<unknown>) => {
      const text = readFileSync(join(REFERENCE_DIRECTORY, `${name}.json`), 'utf8');
      // RequestHeader v0 is declared for ControlledShutdown v0, which newer schemas dropped.
      const problems = compareWithReferenceSchema(codec, text, {
        ignoreValidVersions: name === 'RequestHeader',
      });
      expect(problems).toEqual([]);
    },
  );
});
