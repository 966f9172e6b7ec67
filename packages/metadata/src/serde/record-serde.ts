/**
 * Turns application records into the opaque values raft appends, and back (Kafka's raft
 * `RecordSerde`). Raft itself carries `Buffer`s only; listeners decode what `handleCommit` and
 * `handleLoadSnapshot` hand them through one of these.
 */
export interface RecordSerde<T> {
  /** Encodes one record value. */
  write(record: T): Buffer;
  /** Decodes one whole record value; throws a typed error on bytes that do not decode. */
  read(value: Buffer): T;
}
