/**
 * The payload of a `__raft_performance_test` record: zero-filled bytes, as Kafka's tool writes
 * them, so the two tools' logs hold the same records. Commit latency is measured by the leader
 * for its own appends (see `RaftWorkloadGenerator.takeAppendTimeMs`), never read from a record.
 */
export function createPerformanceRecord(sizeInBytes: number): Buffer {
  if (!Number.isSafeInteger(sizeInBytes) || sizeInBytes < 0) {
    throw new RangeError(`a performance record size must be a non-negative integer, got ${sizeInBytes}`);
  }
  return Buffer.alloc(sizeInBytes);
}
