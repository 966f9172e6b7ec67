import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageCodec } from '@kraft/protocol';
import {
  compareWithReferenceSchema,
  parseReferenceSchema,
  referenceSchemaCheck,
} from '@kraft/protocol/testing';
import { describe, expect, it } from 'vitest';
import {
  ALL_METADATA_RECORD_TYPES,
  metadataRecordCodec,
  metadataRecordTypeName,
} from './metadata-record-type.js';

// Checks every metadata record declaration field by field against Kafka's schemas, read (never
// copied) from the shared kafka-spec folder: seven sit in `messages/`, twenty in `messages/metadata/`.
const { KRAFT_KAFKA_SPEC } = process.env;
// The repository's root sits four levels above this folder; the shared folder is beside it.
const REFERENCE_DIRECTORY =
  KRAFT_KAFKA_SPEC ??
  join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'kafka-spec', 'messages');
const FOLDERS = [REFERENCE_DIRECTORY, join(REFERENCE_DIRECTORY, 'metadata')];

/** Every schema of `"type": "metadata"` in the reference folders, by message name. */
function metadataSchemas(): Map<string, string> {
  const schemas = new Map<string, string>();
  for (const folder of FOLDERS) {
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.json'))) {
      const text = readFileSync(join(folder, file), 'utf8');
      const schema = parseReferenceSchema(text) as { name: string; type?: string };
      if (schema.type === 'metadata') schemas.set(schema.name, text);
    }
  }
  return schemas;
}

const CODECS = ALL_METADATA_RECORD_TYPES.map((id) => metadataRecordCodec(id) as MessageCodec<unknown>);

const check = referenceSchemaCheck(REFERENCE_DIRECTORY, existsSync(REFERENCE_DIRECTORY), process.env);
if (check.kind === 'skip') process.stderr.write(`${check.notice}\n`);
if (check.kind === 'fail') {
  it('finds the Kafka reference schemas', () => {
    throw new Error(check.reason);
  });
}

describe.runIf(check.kind === 'run')('metadata records match Kafka reference schemas', () => {
  const schemas = check.kind === 'run' ? metadataSchemas() : new Map<string, string>();

  it('declares every metadata record the reference has, and no other', () => {
    expect([...schemas.keys()].sort()).toEqual(CODECS.map((codec) => codec.name).sort());
    expect(CODECS).toHaveLength(27);
  });

  it.each(CODECS.map((codec) => [codec.name, codec] as const))('%s', (name, codec) => {
    const text = schemas.get(name);
    expect(text, `no reference schema named ${name}`).toBeDefined();
    expect(compareWithReferenceSchema(codec, text as string)).toEqual([]);
  });
});

describe('MetadataRecordType', () => {
  it('maps each type id to the codec whose api key it is, under a name derived from the record', () => {
    for (const id of ALL_METADATA_RECORD_TYPES) {
      const codec = metadataRecordCodec(id) as MessageCodec<unknown>;
      expect(codec.apiKey).toBe(id);
      const snake = codec.name.replace(/(?<!^)(?=[A-Z])/g, '_').toUpperCase();
      expect(metadataRecordTypeName(id)).toBe(snake);
    }
    expect(metadataRecordCodec(6)).toBeUndefined();
    expect(metadataRecordTypeName(30)).toBeUndefined();
  });
});
