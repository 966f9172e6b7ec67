import type { CommitStatsSnapshot } from './commit-stats.js';

/** This node's place in the quorum when the line is printed. */
export interface NodeStatus {
  /** `leader`, `follower`, `candidate`, ... as the raft client names its state. */
  readonly role: string;
  readonly epoch: number;
  /** Undefined until the node knows a high watermark. */
  readonly highWatermark: number | undefined;
  /** p99 of the event loop's delay over the interval (TARGETS P6), when it is monitored. */
  readonly eventLoopDelayP99Ms?: number;
}

/**
 * Kafka's TestRaftServer line, `Throughput (bytes/second): %.2f, Latency (ms): %.1f p75 %.1f p99
 * %.1f p999`, byte for byte, so the two tools' outputs compare directly; our extras follow it.
 */
export function formatStatsLine(snapshot: CommitStatsSnapshot, status: NodeStatus): string {
  const kafkaLine =
    `Throughput (bytes/second): ${snapshot.bytesPerSecond.toFixed(2)}, ` +
    `Latency (ms): ${snapshot.p75Ms.toFixed(1)} p75 ${snapshot.p99Ms.toFixed(1)} p99 ${snapshot.p999Ms.toFixed(1)} p999`;
  const highWatermark = status.highWatermark === undefined ? 'unknown' : String(status.highWatermark);
  const loopDelay =
    status.eventLoopDelayP99Ms === undefined
      ? ''
      : `, Event loop delay p99 (ms): ${status.eventLoopDelayP99Ms.toFixed(1)}`;
  return (
    `${kafkaLine}, Records/second: ${snapshot.recordsPerSecond.toFixed(2)}, ` +
    `Max latency (ms): ${snapshot.maxLatencyMs.toFixed(1)}, Role: ${status.role}, ` +
    `Epoch: ${status.epoch}, High watermark: ${highWatermark}${loopDelay}`
  );
}

/** Reads a printed line back (tests and tooling): the Kafka part and our extras. */
export const STATS_LINE_PATTERN =
  /^Throughput \(bytes\/second\): (\d+\.\d{2}), Latency \(ms\): (\d+\.\d) p75 (\d+\.\d) p99 (\d+\.\d) p999, Records\/second: (\d+\.\d{2}), Max latency \(ms\): (\d+\.\d), Role: (\w+), Epoch: (\d+), High watermark: (\d+|unknown)(?:, Event loop delay p99 \(ms\): (\d+\.\d))?$/;
