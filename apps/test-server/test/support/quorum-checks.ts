import { expect } from 'vitest';
import { bytesBelowOffset, type TestCluster } from './test-cluster.js';
import type { StatsLine, TestNode } from './test-node.js';

/** How long a quorum of real processes may take to elect a leader and commit (the machine is slow). */
export const STARTUP_TIMEOUT_MS = 30_000;

export function isLeader(stats: StatsLine): boolean {
  return stats.role === 'Leader';
}

/** Waits until one node reports leadership with a high watermark past `minimum`. */
export async function waitForCommittingLeader(
  nodes: readonly TestNode[],
  minimum: number,
  minimumEpoch = 0,
  timeoutMs = STARTUP_TIMEOUT_MS,
): Promise<{ node: TestNode; stats: StatsLine }> {
  const results = nodes.map((node) =>
    node
      .waitForStats(
        (stats) => isLeader(stats) && stats.epoch >= minimumEpoch && (stats.highWatermark ?? 0) > minimum,
        timeoutMs,
        `a leader of epoch >= ${minimumEpoch} past offset ${minimum}`,
      )
      .then((stats) => ({ node, stats })),
  );
  return Promise.any(results);
}

/** SIGTERM every node and expect a clean exit (0) from each. */
export async function stopAll(nodes: readonly TestNode[]): Promise<void> {
  const statuses = await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
  for (const [index, status] of statuses.entries()) {
    expect(status, `node ${nodes[index]?.nodeId} exit:\n${nodes[index]?.tail()}`).toEqual({
      code: 0,
      signal: null,
    });
  }
}

/** The committed prefix (below the smallest final high watermark) is byte-identical on every node. */
export function expectIdenticalCommittedLogs(
  testCluster: TestCluster,
  nodeIds: readonly number[],
  highWatermark: number,
): Buffer {
  const prefixes = nodeIds.map((nodeId) => {
    const log = testCluster.readLogBytes(nodeId);
    return log.subarray(0, bytesBelowOffset(log, highWatermark));
  });
  const first = prefixes[0] as Buffer;
  expect(first.length).toBeGreaterThan(0);
  for (const prefix of prefixes) expect(prefix.equals(first)).toBe(true);
  return first;
}

/**
 * A copy of node `nodeId`'s log below `offset`. Safe on a running node: batches below its high
 * watermark are written before the high watermark moves past them, and never rewritten.
 */
export function committedPrefix(testCluster: TestCluster, nodeId: number, offset: number): Buffer {
  const log = testCluster.readLogBytes(nodeId);
  return Buffer.from(log.subarray(0, bytesBelowOffset(log, offset)));
}

/**
 * The base offset of the first batch whose partition leader epoch is above `epoch`, walking v2
 * batch headers (baseOffset int64 @0, batchLength int32 @8, partitionLeaderEpoch int32 @12), or
 * undefined when there is none.
 */
export function firstOffsetAfterEpoch(log: Buffer, epoch: number): number | undefined {
  let position = 0;
  while (position + 17 <= log.length) {
    const batchLength = log.readInt32BE(position + 8);
    if (batchLength <= 0) return undefined;
    if (log.readInt32BE(position + 12) > epoch) return Number(log.readBigInt64BE(position));
    position += 12 + batchLength;
  }
  return undefined;
}

/** One `quorum state transition` log line of a node. */
export interface StateTransition {
  readonly timeMs: number;
  readonly from: string | undefined;
  readonly to: string;
  readonly epoch: number;
  readonly leaderId: number | undefined;
}

/** The node's state transitions so far, from its JSON log lines on stderr. */
export function stateTransitions(node: TestNode): StateTransition[] {
  const transitions: StateTransition[] = [];
  for (const line of node.stderrLines) {
    if (!line.includes('"msg":"quorum state transition"')) continue;
    const entry = JSON.parse(line) as {
      time: number;
      from?: string;
      to: string;
      epoch: number;
      leaderId?: number;
    };
    transitions.push({
      timeMs: entry.time,
      from: entry.from,
      to: entry.to,
      epoch: entry.epoch,
      leaderId: entry.leaderId,
    });
  }
  return transitions;
}

/**
 * `Leader@3 → Resigned@3 → Unattached@4` for reports; with `originMs` (wall clock, as pino's
 * `time`), each also says when: `Resigned@3(+3.0s)`.
 */
export function describeTransitions(transitions: readonly StateTransition[], originMs?: number): string {
  return transitions
    .map((transition) => {
      const when =
        originMs === undefined
          ? ''
          : `(${transition.timeMs >= originMs ? '+' : ''}${((transition.timeMs - originMs) / 1000).toFixed(1)}s)`;
      return `${transition.to}@${transition.epoch}${when}`;
    })
    .join(' → ');
}

export const sleep = (durationMs: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, durationMs));
