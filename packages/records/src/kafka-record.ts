import { CorruptRecordError } from './errors/corrupt-record-error.js';

/** A record header: Kafka keys headers by UTF-8 string; the value may be null. */
export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

/**
 * One decoded record of a batch. `key` and `value` are zero-copy views of the batch bytes (or of
 * the inflated bytes of a compressed batch), so they stay valid only as long as those bytes are
 * not reused; copy them to keep them past the next refill of a reused iterator buffer.
 */
export interface KafkaRecord {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/** Shared by every record without headers (all KRaft records), so they allocate nothing for it. */
export const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** length 1 + attributes 1 + timestampDelta 1 + offsetDelta 1 + key 1 + value 1 + headers 1. */
export const MIN_RECORD_SIZE_BYTES = 7;

const MAX_VARINT_BYTES = 5;
const MAX_VARLONG_BYTES = 10;
/** Up to 7 varlong bytes (49 bits) accumulate exactly in a double; longer ones take a BigInt path. */
const MAX_EXACT_VARLONG_BYTES = 7;

/**
 * A cursor over the records section of one batch. One is made per batch, not per record; its
 * methods throw `CorruptRecordError` with the batch's offset and position on any malformed input.
 */
export class RecordCursor {
  position: number;
  limit: number;

  constructor(
    readonly buffer: Buffer,
    start: number,
    readonly end: number,
    readonly batchOffset: number,
    readonly batchPosition: number,
  ) {
    this.position = start;
    this.limit = end;
  }

  corrupt(reason: string): CorruptRecordError {
    return new CorruptRecordError(reason, this.batchOffset, this.batchPosition);
  }

  private nextByte(): number {
    if (this.position >= this.limit) throw this.corrupt('truncated record');
    const byte = this.buffer[this.position] as number;
    this.position += 1;
    return byte;
  }

  skipByte(): void {
    if (this.position >= this.limit) throw this.corrupt('truncated record');
    this.position += 1;
  }

  /** Zigzag varint (int32), at most 5 bytes; longer encodings are corrupt, as in Kafka. */
  readVarint(): number {
    // Fast path: most record fields (attributes-adjacent deltas, null keys, header counts) are one byte.
    const position = this.position;
    if (position < this.limit) {
      const byte = this.buffer[position] as number;
      if (byte < 0x80) {
        this.position = position + 1;
        return (byte >>> 1) ^ -(byte & 1);
      }
    }
    return this.readMultiByteVarint();
  }

  private readMultiByteVarint(): number {
    let raw = 0;
    let scale = 1;
    for (let index = 0; index < MAX_VARINT_BYTES; index += 1) {
      const byte = this.nextByte();
      if (index === MAX_VARINT_BYTES - 1 && byte > 0x0f) throw this.corrupt('varint is over-long');
      raw += (byte & 0x7f) * scale;
      if (byte < 0x80) return (raw >>> 1) ^ -(raw & 1);
      scale *= 128;
    }
    throw this.corrupt('varint is over-long');
  }

  /** Zigzag varlong as a safe integer; at most 10 bytes. */
  readVarlong(): number {
    const start = this.position;
    if (start < this.limit) {
      const byte = this.buffer[start] as number;
      if (byte < 0x80) {
        this.position = start + 1;
        return (byte >>> 1) ^ -(byte & 1);
      }
    }
    let raw = 0;
    let scale = 1;
    for (let index = 0; index < MAX_EXACT_VARLONG_BYTES; index += 1) {
      const byte = this.nextByte();
      raw += (byte & 0x7f) * scale;
      if (byte < 0x80) return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      scale *= 128;
    }
    this.position = start;
    return this.readLongVarlong();
  }

  private readLongVarlong(): number {
    let raw = 0n;
    for (let index = 0; index < MAX_VARLONG_BYTES; index += 1) {
      const byte = this.nextByte();
      if (index === MAX_VARLONG_BYTES - 1 && byte > 0x01) throw this.corrupt('varlong is over-long');
      raw |= BigInt(byte & 0x7f) << BigInt(7 * index);
      if (byte < 0x80) {
        const value = Number((raw >> 1n) ^ -(raw & 1n));
        if (!Number.isSafeInteger(value)) throw this.corrupt('varlong is not a safe integer');
        return value;
      }
    }
    throw this.corrupt('varlong is over-long');
  }

  /** A varint length then that many bytes as a view; -1 is null. */
  readNullableBytes(what: string): Buffer | null {
    const size = this.readVarint();
    if (size === -1) return null;
    if (size < 0) throw this.corrupt(`invalid ${what} size ${size}`);
    if (size > this.limit - this.position) throw this.corrupt(`${what} of ${size} bytes overruns the record`);
    const bytes = this.buffer.subarray(this.position, this.position + size);
    this.position += size;
    return bytes;
  }

  private readHeaders(): readonly RecordHeader[] {
    const count = this.readVarint();
    if (count === 0) return NO_HEADERS;
    // Each header takes at least two bytes (key length and value length), checked before allocating.
    if (count < 0 || count * 2 > this.limit - this.position)
      throw this.corrupt(`invalid header count ${count}`);
    const headers: RecordHeader[] = [];
    for (let index = 0; index < count; index += 1) {
      const keySize = this.readVarint();
      if (keySize < 0) throw this.corrupt(`invalid header key size ${keySize}`);
      if (keySize > this.limit - this.position) throw this.corrupt('header key overruns the record');
      const key = this.buffer.toString('utf8', this.position, this.position + keySize);
      this.position += keySize;
      headers.push({ key, value: this.readNullableBytes('header value') });
    }
    return headers;
  }

  /**
   * Reads one record. `logAppendTime` replaces every record's timestamp when the batch uses
   * LOG_APPEND_TIME (Kafka stores the broker's time once, as the batch's max timestamp).
   */
  readRecord(baseOffset: number, baseTimestamp: number, logAppendTime: number | undefined): KafkaRecord {
    this.limit = this.end;
    const size = this.readVarint();
    if (size < 0 || size > this.end - this.position) {
      throw this.corrupt(`record size ${size} overruns the batch (${this.end - this.position} bytes left)`);
    }
    const recordEnd = this.position + size;
    this.limit = recordEnd;
    this.skipByte(); // attributes: unused in magic 2
    const timestampDelta = this.readVarlong();
    const offsetDelta = this.readVarint();
    const key = this.readNullableBytes('key');
    const value = this.readNullableBytes('value');
    const headers = this.readHeaders();
    if (this.position !== recordEnd) {
      throw this.corrupt(
        `record declared ${size} bytes but its fields took ${size - (recordEnd - this.position)}`,
      );
    }
    this.limit = this.end;
    return {
      offset: baseOffset + offsetDelta,
      timestamp: logAppendTime ?? baseTimestamp + timestampDelta,
      key,
      value,
      headers,
    };
  }
}

/**
 * Decodes exactly `count` records from `buffer[start, end)`. Fewer records than the count, or
 * bytes left over after it, is corruption (Kafka: "Incorrect number of records").
 */
export function decodeRecords(
  cursor: RecordCursor,
  count: number,
  baseOffset: number,
  baseTimestamp: number,
  logAppendTime: number | undefined,
): KafkaRecord[] {
  if (count < 0 || count * MIN_RECORD_SIZE_BYTES > cursor.end - cursor.position) {
    throw cursor.corrupt(`record count ${count} cannot fit in ${cursor.end - cursor.position} bytes`);
  }
  const records: KafkaRecord[] = [];
  for (let index = 0; index < count; index += 1) {
    records.push(cursor.readRecord(baseOffset, baseTimestamp, logAppendTime));
  }
  if (cursor.position !== cursor.end) {
    throw cursor.corrupt(
      `${cursor.end - cursor.position} bytes left after the ${count} records the batch declares`,
    );
  }
  return records;
}
