/**
 * How a `RaftNode<T>` turns application values into record bytes and back (Kafka's
 * `RecordSerde<T>`: `recordSize` first, so a proposal's batch is sized and checked before one
 * buffer is allocated for all of its values, then `write` into that buffer, `read` on apply).
 */
export interface RecordSerde<T> {
  /** The exact number of bytes `write` produces for `value`. */
  recordSize(value: T): number;
  /** Writes `value` at `target[offset]`; returns the number of bytes written (`recordSize`). */
  write(value: T, target: Buffer, offset: number): number;
  /**
   * Decodes one whole record value. `source` is a record value of a batch raft read from its log or
   * a snapshot; raft never reuses or overwrites it, so the value may keep views of it.
   */
  read(source: Buffer): T;
}

/** Values that are already bytes: copied into the batch on propose, copied out on apply. */
export const bufferSerde: RecordSerde<Buffer> = Object.freeze({
  recordSize: (value: Buffer) => value.length,
  write: (value: Buffer, target: Buffer, offset: number) => value.copy(target, offset),
  read: (source: Buffer) => Buffer.from(source),
});

/** UTF-8 strings. */
export const stringSerde: RecordSerde<string> = Object.freeze({
  recordSize: (value: string) => Buffer.byteLength(value, 'utf8'),
  write: (value: string, target: Buffer, offset: number) => target.write(value, offset, 'utf8'),
  read: (source: Buffer) => source.toString('utf8'),
});

/**
 * JSON values as UTF-8 text. The text `recordSize` made is kept for a `write` of that same value
 * that follows it (Kafka's serialization cache, one entry deep: for a one-value proposal, the
 * common case, each value is encoded once). Every `recordSize` replaces the entry, so a value
 * changed since is never written stale.
 */
export function jsonSerde<T>(): RecordSerde<T> {
  let sizedValue: T | undefined;
  let sizedText: string | undefined;
  const encode = (value: T): string => JSON.stringify(value) ?? 'null';
  return {
    recordSize(value) {
      sizedValue = value;
      sizedText = encode(value);
      return Buffer.byteLength(sizedText, 'utf8');
    },
    write(value, target, offset) {
      const text = value === sizedValue && sizedText !== undefined ? sizedText : encode(value);
      sizedValue = undefined;
      sizedText = undefined;
      return target.write(text, offset, 'utf8');
    },
    read: (source) => JSON.parse(source.toString('utf8')) as T,
  };
}
