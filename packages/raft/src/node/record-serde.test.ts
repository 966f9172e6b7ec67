import { InvalidConfigurationError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RecordBatchTooLargeError } from '../errors/record-batch-too-large-error.js';
import { MAX_BATCH_SIZE_BYTES } from '../internals/batch-accumulator.js';
import { bufferSerde, jsonSerde, type RecordSerde, stringSerde } from './record-serde.js';
import { encodeValues } from './value-codec.js';

function roundTrip<T>(serde: RecordSerde<T>, values: readonly T[]): T[] {
  return encodeValues(serde, values).map((record) => serde.read(record));
}

describe('record serdes', () => {
  it('round-trip buffers, strings and JSON values through one batch buffer', () => {
    expect(roundTrip(bufferSerde, [Buffer.from('ab'), Buffer.alloc(0), Buffer.from([0, 255])])).toEqual([
      Buffer.from('ab'),
      Buffer.alloc(0),
      Buffer.from([0, 255]),
    ]);
    expect(roundTrip(stringSerde, ['', 'héllo', '日本'])).toEqual(['', 'héllo', '日本']);
    const json = jsonSerde<unknown>();
    expect(roundTrip(json, [{ a: 1 }, [1, 'x'], null, 'text'])).toEqual([{ a: 1 }, [1, 'x'], null, 'text']);
  });

  it('shares one allocation between the values of a batch', () => {
    const [first, second] = encodeValues(stringSerde, ['abc', 'de']);
    expect(first?.buffer).toBe(second?.buffer);
  });

  it('never writes a JSON value stale when it changed after it was sized', () => {
    const serde = jsonSerde<{ n: number }>();
    const value = { n: 1 };
    serde.recordSize(value);
    value.n = 2;
    serde.recordSize({ n: 3 });
    const target = Buffer.alloc(16);
    const written = serde.write(value, target, 0);
    expect(target.subarray(0, written).toString()).toBe('{"n":2}');
  });

  it('refuses a batch above the max batch size before allocating it', () => {
    const huge = { recordSize: () => MAX_BATCH_SIZE_BYTES, write: () => 0, read: () => 0 };
    expect(() => encodeValues(huge, [1, 2])).toThrow(RecordBatchTooLargeError);
  });

  it('refuses an empty or missing list of values with a typed error', () => {
    expect(() => encodeValues(stringSerde, [])).toThrow(InvalidConfigurationError);
    expect(() => encodeValues(stringSerde, undefined as unknown as string[])).toThrow(/non-empty array/);
  });

  it('refuses a serde whose write disagrees with its recordSize', () => {
    const lying = { recordSize: () => 4, write: () => 3, read: () => 0 };
    expect(() => encodeValues(lying, [1])).toThrow(/wrote 3 bytes where recordSize said 4/);
    const negative = { recordSize: () => -1, write: () => 0, read: () => 0 };
    expect(() => encodeValues(negative, [1])).toThrow(/not a byte count/);
  });
});
