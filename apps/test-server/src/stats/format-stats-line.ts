import type { CommitStatsSnapshot } from './commit-stats.js';

/** This node's place in the quorum when the line is printed. */
export interface NodeStatus {
  /** `Leader`, `Follower`, `Candidate`, ... as the raft client names its state. */
  readonly role: string;
  readonly epoch: number;
  /** The leader this node knows in its epoch (itself when it leads); undefined when none. */
  readonly leaderId: number | undefined;
  /** Undefined until the node knows a high watermark. */
  readonly highWatermark: number | undefined;
  readonly logEndOffset: number;
  /** p99 of the event loop's delay over the interval (TARGETS P6), when it is monitored. */
  readonly eventLoopDelayP99Ms?: number;
}

/**
 * Kafka's TestRaftServer line, `Throughput (bytes/second): %.2f, Latency (ms): %.1f p75 %.1f p99
 * %.1f p999`, byte for byte, so the two tools' outputs compare directly; our extras follow it.
 * Kafka measures latency only on the leader, for its own appends, and its followers print
 * nothing. Ours print their committed throughput with no latency figure (no `Latency (ms)` and no
 * `Max latency (ms)`), and, like every line, whom they follow (`Leader: <id>`).
 */
export function formatStatsLine(snapshot: CommitStatsSnapshot, status: NodeStatus): string {
  const throughput = `Throughput (bytes/second): ${snapshot.bytesPerSecond.toFixed(2)}`;
  const recordsPerSecond = `Records/second: ${snapshot.recordsPerSecond.toFixed(2)}`;
  // The core names its states `Leader`, ...; the driver's fallback names them `leader`, ...
  const measured = snapshot.latencyRecords > 0 || status.role.toLowerCase() === 'leader';
  const head = measured
    ? `${throughput}, Latency (ms): ${snapshot.p75Ms.toFixed(1)} p75 ${snapshot.p99Ms.toFixed(1)} p99 ` +
      `${snapshot.p999Ms.toFixed(1)} p999, ${recordsPerSecond}, Max latency (ms): ${snapshot.maxLatencyMs.toFixed(1)}`
    : `${throughput}, ${recordsPerSecond}`;
  const highWatermark = status.highWatermark === undefined ? 'unknown' : String(status.highWatermark);
  const loopDelay =
    status.eventLoopDelayP99Ms === undefined
      ? ''
      : `, Event loop delay p99 (ms): ${status.eventLoopDelayP99Ms.toFixed(1)}`;
  return (
    `${head}, Role: ${status.role}, Epoch: ${status.epoch}, High watermark: ${highWatermark}${loopDelay}, ` +
    `Leader: ${status.leaderId ?? 'none'}, Log end offset: ${status.logEndOffset}`
  );
}

/**
 * Reads a printed line back (tests and tooling). The latency groups are absent on a line that
 * measured none (a follower's).
 */
export const STATS_LINE_PATTERN =
  /^Throughput \(bytes\/second\): (?<bytesPerSecond>\d+\.\d{2}), (?:Latency \(ms\): (?<p75Ms>\d+\.\d) p75 (?<p99Ms>\d+\.\d) p99 (?<p999Ms>\d+\.\d) p999, )?Records\/second: (?<recordsPerSecond>\d+\.\d{2}), (?:Max latency \(ms\): (?<maxLatencyMs>\d+\.\d), )?Role: (?<role>\w+), Epoch: (?<epoch>\d+), High watermark: (?<highWatermark>\d+|unknown)(?:, Event loop delay p99 \(ms\): (?<eventLoopDelayP99Ms>\d+\.\d))?, Leader: (?<leaderId>\d+|none), Log end offset: (?<logEndOffset>\d+)$/;
