/**
 * The record cursor's varints and bounds, from the survivors of the mutation run of
 * `kafka-record.ts` (docs/reliability.md): every read stops at the cursor's limit even where the
 * buffer goes on (the slice rule, KAFKA-20841), and multi-byte, negative and over-long varints
 * decode as the zigzag encoding says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { decodeRecords, RecordCursor } from './kafka-record.js';
import { readSafeInt64, writeSafeInt64 } from './safe-int64.js';
import { sizeOfUnsignedVarint, writeUnsignedVarint } from './varint-writer.js';

/** Zigzag of a safe integer, as a non-negative safe integer when it fits. */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

/** `bytes`, then `padding` more bytes the cursor must never read: its limit is `bytes.length`. */
function cursorOver(bytes: readonly number[], padding: readonly number[] = [0x7f, 0x01, 0x00]): RecordCursor {
  const buffer = Buffer.from([...bytes, ...padding]);
  return new RecordCursor(buffer, 0, bytes.length, 0, 0);
}

function encoded(unsigned: number): number[] {
  const buffer = Buffer.alloc(10);
  const end = writeUnsignedVarint(buffer, 0, unsigned);
  return [...buffer.subarray(0, end)];
}

describe('RecordCursor varints', () => {
  it('reads every int32 back from its zigzag varint, one to five bytes, negative ones too', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (value) => {
        const bytes = encoded(zigzag(value));
        const cursor = cursorOver(bytes);
        expect(cursor.readVarint()).toBe(value);
        expect(cursor.position).toBe(bytes.length);
      }),
    );
    for (const value of [-65, -64, 63, 64, -(2 ** 31), 2 ** 31 - 1]) {
      expect(cursorOver(encoded(zigzag(value))).readVarint()).toBe(value);
    }
  });

  it('reads every safe integer back from its zigzag varlong', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 52), max: 2 ** 52 - 1 }), (value) => {
        const bytes = encoded(zigzag(value));
        const cursor = cursorOver(bytes);
        expect(cursor.readVarlong()).toBe(value);
        expect(cursor.position).toBe(bytes.length);
      }),
    );
  });

  it('takes a fifth varint byte up to 0x0f and refuses a larger one or a sixth byte', () => {
    expect(cursorOver([0xff, 0xff, 0xff, 0xff, 0x0f]).readVarint()).toBe(-(2 ** 31));
    expect(() => cursorOver([0xff, 0xff, 0xff, 0xff, 0x10]).readVarint()).toThrow(/varint is over-long/);
    expect(() => cursorOver([0x80, 0x80, 0x80, 0x80, 0x80, 0x00]).readVarint()).toThrow(
      /varint is over-long/,
    );
  });

  it('never reads past its limit, although the buffer goes on', () => {
    // A varint cut at the limit: the continuation byte promises one the record does not hold.
    expect(() => cursorOver([0x80]).readVarint()).toThrow(CorruptRecordError);
    expect(() => cursorOver([0x80]).readVarint()).toThrow(/truncated record/);
    expect(() => cursorOver([0x80]).readVarlong()).toThrow(/truncated record/);
    // Nothing left at all: the one-byte fast path must not take the byte after the limit.
    expect(() => cursorOver([]).readVarint()).toThrow(/truncated record/);
    expect(() => cursorOver([]).readVarlong()).toThrow(/truncated record/);
    expect(() => cursorOver([]).skipByte()).toThrow(/truncated record/);
  });

  it('names the batch offset and position in its errors', () => {
    const cursor = new RecordCursor(Buffer.from([0x80, 0x01]), 0, 1, 4_096, 123);
    let caught: unknown;
    try {
      cursor.readVarint();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CorruptRecordError);
    expect(caught).toMatchObject({ offset: 4_096, position: 123 });
  });
});

/** Zigzag varint bytes of `value`. */
function varint(value: number): number[] {
  return encoded(zigzag(value));
}

/**
 * One record's bytes, its length prefix first: attributes 0, deltas 0, then `body` (key, value
 * and headers as the test wants them, possibly malformed); `declaredSize` overrides the length.
 */
function recordBytes(body: readonly number[], declaredSize?: number): number[] {
  const fields = [0, ...varint(0), ...varint(0), ...body];
  return [...varint(declaredSize ?? fields.length), ...fields];
}

/** Reads one record from `bytes` with more bytes after them in the buffer (never to be read). */
function readRecordOf(bytes: readonly number[]) {
  const buffer = Buffer.from([...bytes, 0x02, 0x02, 0x02, 0x02]);
  return new RecordCursor(buffer, 0, bytes.length, 0, 0).readRecord(100, 0, undefined);
}

describe('RecordCursor records', () => {
  it('reads a record with a key, a value and a header', () => {
    const body = [
      ...varint(1),
      0x6b,
      ...varint(2),
      0x76,
      0x76,
      ...varint(1),
      ...varint(1),
      0x68,
      ...varint(-1),
    ];
    const read = readRecordOf(recordBytes(body));
    expect(read.key?.toString()).toBe('k');
    expect(read.value?.toString()).toBe('vv');
    expect(read.headers).toEqual([{ key: 'h', value: null }]);
    expect(read.offset).toBe(100);
  });

  it.each([
    ['a key size below -1', [...varint(-2), ...varint(-1), ...varint(0)], /invalid key size -2/],
    [
      'a key past the record',
      [...varint(4), 0x6b, ...varint(-1), ...varint(0)],
      /key of 4 bytes overruns the record/,
    ],
    [
      'a value past the record',
      [...varint(-1), ...varint(4), 0x76, ...varint(0)],
      /value of 4 bytes overruns the record/,
    ],
    ['a negative header count', [...varint(-1), ...varint(-1), ...varint(-1)], /invalid header count -1/],
    [
      'more headers than bytes',
      [...varint(-1), ...varint(-1), ...varint(2), ...varint(0)],
      /invalid header count 2/,
    ],
    [
      'a negative header key size',
      [...varint(-1), ...varint(-1), ...varint(1), ...varint(-1), ...varint(-1)],
      /invalid header key size -1/,
    ],
    [
      'a header key past the record',
      [...varint(-1), ...varint(-1), ...varint(1), ...varint(5), ...varint(-1)],
      /header key overruns the record/,
    ],
  ])('refuses %s, although the buffer goes on', (_what, body, reason) => {
    expect(() => readRecordOf(recordBytes(body))).toThrow(reason);
  });

  it('refuses a record whose fields end before or after its declared size', () => {
    const body = [...varint(-1), ...varint(-1), ...varint(0)];
    expect(() => readRecordOf(recordBytes([...body, 0x00]))).toThrow(
      /declared 7 bytes but its fields took 6/,
    );
    expect(() => readRecordOf(recordBytes(body, 4))).toThrow(/truncated record|overruns/);
    expect(() => readRecordOf(recordBytes(body, 40))).toThrow(/record size 40 overruns the batch/);
  });
});

describe('decodeRecords', () => {
  const oneRecord = recordBytes([...varint(-1), ...varint(-1), ...varint(0)]);

  function decode(bytes: readonly number[], count: number) {
    const buffer = Buffer.from([...bytes, 0x02, 0x02]);
    return decodeRecords(new RecordCursor(buffer, 0, bytes.length, 0, 0), count, 0, 0, undefined);
  }

  it('decodes exactly the records the batch declares', () => {
    expect(decode([...oneRecord, ...oneRecord], 2).map((record) => record.offset)).toEqual([0, 0]);
  });

  it.each([
    [-1, /record count -1 cannot fit in 7 bytes/],
    [2, /record count 2 cannot fit in 7 bytes/],
  ])('refuses a count of %i before reading a record', (count, reason) => {
    expect(() => decode(oneRecord, count)).toThrow(reason);
  });

  it('refuses bytes left after the declared records', () => {
    expect(() => decode([...oneRecord, ...oneRecord], 1)).toThrow(/7 bytes left after the 1 records/);
  });
});

describe('readSafeInt64', () => {
  it('reads every int64 as its number when it is a safe integer, else NaN; writes safe ones back', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (value) => {
        const buffer = Buffer.alloc(8);
        buffer.writeBigInt64BE(value);
        const read = readSafeInt64(buffer, 0);
        const safe = value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER);
        expect(read).toBe(safe ? Number(value) : Number.NaN);
        if (safe) {
          const written = Buffer.alloc(8);
          writeSafeInt64(written, read, 0);
          expect(written.readBigInt64BE()).toBe(value);
        }
      }),
    );
    for (const edge of [2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n, -(2n ** 53n) + 1n]) {
      const buffer = Buffer.alloc(8);
      buffer.writeBigInt64BE(edge);
      const safe = edge <= BigInt(Number.MAX_SAFE_INTEGER) && edge >= BigInt(Number.MIN_SAFE_INTEGER);
      expect(readSafeInt64(buffer, 0)).toBe(safe ? Number(edge) : Number.NaN);
    }
  });
});

describe('sizeOfUnsignedVarint', () => {
  it('is the length writeUnsignedVarint writes, at every 7-bit boundary and in between', () => {
    const lengthWritten = (value: number) => writeUnsignedVarint(Buffer.alloc(10), 0, value);
    for (let bits = 0; bits <= 53; bits += 1) {
      for (const value of [2 ** bits - 1, 2 ** bits, 2 ** bits + 1]) {
        if (!Number.isSafeInteger(value)) continue;
        expect(sizeOfUnsignedVarint(value), String(value)).toBe(lengthWritten(value));
      }
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (value) => {
        expect(sizeOfUnsignedVarint(value)).toBe(lengthWritten(value));
      }),
    );
  });
});
