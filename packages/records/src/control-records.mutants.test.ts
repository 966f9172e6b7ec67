/**
 * Decoding one control record, from the survivors of the mutation run of `control-records.ts`
 * (docs/reliability.md): each way a control record can be malformed is a typed error that says
 * what is wrong, never a TypeError from reading a null or a short buffer.
 */
import { describe, expect, it } from 'vitest';
import { ControlRecordType, decodeControlRecord, readControlRecordType } from './control-records.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { UnknownControlTypeError } from './errors/unknown-control-type-error.js';
import type { KafkaRecord } from './kafka-record.js';

const OFFSET = 42;
const BATCH_POSITION = 7;

function keyOf(version: number, type: number): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(version, 0);
  key.writeInt16BE(type, 2);
  return key;
}

function record(key: Buffer | null, value: Buffer | null): KafkaRecord {
  return { offset: OFFSET, timestamp: 0, key, value, headers: [] };
}

function errorOf(decode: () => unknown): unknown {
  try {
    decode();
  } catch (error) {
    return error;
  }
  throw new Error('expected the decode to throw');
}

describe('control record decoding', () => {
  it.each([
    [null, 'control record key has no bytes, needs 4'],
    [Buffer.from([0, 0, 0]), 'control record key has 3 bytes, needs 4'],
  ])('refuses a short key (%j) as corrupt, saying how long it is', (key, reason) => {
    const error = errorOf(() => readControlRecordType(key, OFFSET, BATCH_POSITION));
    expect(error).toBeInstanceOf(CorruptRecordError);
    expect(error).toMatchObject({ reason, offset: OFFSET, position: BATCH_POSITION });
  });

  it('refuses a negative key version and reads any other version as version 0', () => {
    const error = errorOf(() => readControlRecordType(keyOf(-1, 2), OFFSET, BATCH_POSITION));
    expect(error).toMatchObject({ reason: 'negative control record key version -1' });
    expect(readControlRecordType(keyOf(7, ControlRecordType.KRAFT_VOTERS), OFFSET, BATCH_POSITION)).toBe(
      ControlRecordType.KRAFT_VOTERS,
    );
  });

  it.each([0, 1, 7, -3])('refuses type %i as an unknown control type', (type) => {
    const error = errorOf(() => decodeControlRecord(record(keyOf(0, type), Buffer.alloc(8)), BATCH_POSITION));
    expect(error).toBeInstanceOf(UnknownControlTypeError);
  });

  it('refuses a null value as corrupt', () => {
    const error = errorOf(() =>
      decodeControlRecord(record(keyOf(0, ControlRecordType.LEADER_CHANGE), null), BATCH_POSITION),
    );
    expect(error).toBeInstanceOf(CorruptRecordError);
    expect(error).toMatchObject({ reason: 'control record has a null value', offset: OFFSET });
  });

  it('refuses a value that does not parse as corrupt, the parse error as its cause', () => {
    const error = errorOf(() =>
      decodeControlRecord(record(keyOf(0, ControlRecordType.KRAFT_VOTERS), Buffer.from([0])), BATCH_POSITION),
    );
    expect(error).toBeInstanceOf(CorruptRecordError);
    expect((error as CorruptRecordError).reason).toMatch(/^control record value: /);
    expect((error as CorruptRecordError).cause).toBeDefined();
  });
});
