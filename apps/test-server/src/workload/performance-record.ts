/**
 * The payload of a `__raft_performance_test` record. Kafka's tool sends zero-filled bytes; ours
 * carries its append time (wall-clock milliseconds, float64 LE) in the first 8 bytes, so every
 * node, not only the leader, can measure commit latency as "commit seen − append time". All the
 * nodes of a test run share one machine's clock.
 */
export const APPEND_TIME_SIZE_BYTES = 8;

/** A fresh zero-filled payload of `sizeInBytes` stamped with `appendTimeMs`. */
export function createPerformanceRecord(sizeInBytes: number, appendTimeMs: number): Buffer {
  if (sizeInBytes < APPEND_TIME_SIZE_BYTES) {
    throw new RangeError(
      `a performance record needs at least ${APPEND_TIME_SIZE_BYTES} bytes, got ${sizeInBytes}`,
    );
  }
  const payload = Buffer.alloc(sizeInBytes);
  payload.writeDoubleLE(appendTimeMs, 0);
  return payload;
}

/** The append time a record carries, or `undefined` if it is not one of ours. */
export function readAppendTimeMs(value: Uint8Array | null): number | undefined {
  if (value === null || value.length < APPEND_TIME_SIZE_BYTES) return undefined;
  const view = new DataView(value.buffer, value.byteOffset, APPEND_TIME_SIZE_BYTES);
  const appendTimeMs = view.getFloat64(0, true);
  return Number.isFinite(appendTimeMs) ? appendTimeMs : undefined;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}
