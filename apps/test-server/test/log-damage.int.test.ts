/**
 * Damage inside a flushed segment between real test-server processes (ADR 0010).
 * A byte flipped below the recovery point is lost flushed data, never a torn tail: a lone voter
 * refuses to start and keeps every byte; in a 3-node quorum the damaged node truncates there,
 * runs as a non-voting observer while it fetches the lost range back, then votes again, and the
 * committed logs end byte-identical.
 */
import { closeSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  describeTransitions,
  expectIdenticalCommittedLogs,
  STARTUP_TIMEOUT_MS,
  stateTransitions,
  stopAll,
  waitForCommittingLeader,
} from './support/quorum-checks.js';
import { PARTITION_DIRECTORY, TestCluster } from './support/test-cluster.js';
import type { TestNode } from './support/test-node.js';

const WORKLOAD_ARGS = ['--throughput', '2000'] as const;
const PROGRESS_TIMEOUT_MS = 60_000;
const SCENARIO_TIMEOUT_MS = 180_000;

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

function firstSegmentPath(testCluster: TestCluster, nodeId: number): string {
  const directory = join(testCluster.logDirectory(nodeId), PARTITION_DIRECTORY);
  const name = readdirSync(directory)
    .filter((entry) => entry.endsWith('.log'))
    .sort()[0];
  if (name === undefined) throw new Error(`node ${nodeId} has no segment`);
  return join(directory, name);
}

/** Flips one bit at `position` of `path` in place (a record body: the batch CRC no longer holds). */
function flipByte(path: string, position: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, position);
    byte[0] = (byte[0] as number) ^ 0x10;
    writeSync(fd, byte, 0, 1, position);
  } finally {
    closeSync(fd);
  }
}

async function exitWithin(node: TestNode, timeoutMs: number): Promise<number | null> {
  const timeout = new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), timeoutMs));
  const result = await Promise.race([node.exited, timeout]);
  if (result === 'running') {
    await node.killHard();
    throw new Error(`node still running after ${timeoutMs} ms:\n${node.tail()}`);
  }
  return result.code;
}

describe('a byte flipped below the recovery point', () => {
  it(
    'a lone voter refuses to start with the file, position and repair choices, and loses nothing',
    async () => {
      cluster = await TestCluster.create(1);
      const testCluster = cluster;
      const first = testCluster.start(1, [...WORKLOAD_ARGS]);
      await waitForCommittingLeader([first], 4000);
      await stopAll([first]);
      const before = testCluster.readLogBytes(1);
      const segment = firstSegmentPath(testCluster, 1);
      const position = Math.floor(before.length / 2);
      flipByte(segment, position);

      // First start after the clean stop: the open trusts the files; the listener's read of the
      // committed log meets the damage (CRC) and the process stops. The next start validates every
      // batch and refuses: nothing is cut, and it stays refused.
      const second = testCluster.start(1, [...WORKLOAD_ARGS]);
      expect(await exitWithin(second, PROGRESS_TIMEOUT_MS), second.tail()).toBe(1);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const refused = testCluster.start(1, [...WORKLOAD_ARGS]);
        expect(await exitWithin(refused, PROGRESS_TIMEOUT_MS), refused.tail()).toBe(1);
        const explained = refused.stderrLines.find((line) =>
          line.includes('the metadata log lost flushed data: refusing to start'),
        );
        expect(explained, refused.tail()).toBeDefined();
        const entry = JSON.parse(explained as string) as Record<string, unknown>;
        expect(entry['file']).toBe(segment);
        expect(entry['positionBytes']).toBeLessThanOrEqual(position);
        expect(entry['firstLostOffset']).toBeTypeOf('number');
        expect(entry['override']).toBe('internal.metadata.log.accept.flushed.data.loss=true');
        expect(refused.stderrLines.some((line) => /truncated a torn log tail/.test(line))).toBe(false);
      }
      // Every byte written before the stop is still there (the first restart may have appended).
      const after = testCluster.readLogBytes(1);
      const expected = Buffer.from(before);
      expected[position] = (expected[position] as number) ^ 0x10;
      expect(after.subarray(0, before.length).equals(expected)).toBe(true);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.each(['a follower', 'the leader'] as const)(
    'in a 3-node quorum %s killed and damaged re-fetches the lost range as a non-voting observer; the committed logs end identical',
    async (which) => {
      cluster = await TestCluster.create(3);
      const testCluster = cluster;
      const nodes = new Map(
        [1, 2, 3].map((nodeId) => [nodeId, testCluster.start(nodeId, [...WORKLOAD_ARGS])]),
      );
      const { node: leader, stats } = await waitForCommittingLeader([...nodes.values()], 6000);
      const damagedId =
        which === 'the leader'
          ? (leader.nodeId as number)
          : ([1, 2, 3].find((nodeId) => nodeId !== leader.nodeId) as number);
      const damaged = nodes.get(damagedId) as TestNode;
      await damaged.waitForStats(
        (line) => (line.highWatermark ?? 0) > 6000,
        STARTUP_TIMEOUT_MS,
        'past offset 6000',
      );
      await damaged.killHard();
      // The other two (a majority) go on, electing a new leader if the damaged node led.
      const others = [...nodes.entries()].filter(([nodeId]) => nodeId !== damagedId).map(([, node]) => node);
      await waitForCommittingLeader(others, (stats.highWatermark ?? 0) + 2000);
      const segment = firstSegmentPath(testCluster, damagedId);
      // Early in the log: flushed long ago, far below the recovery point.
      flipByte(segment, 4096);

      const restarted = testCluster.start(damagedId, [...WORKLOAD_ARGS]);
      nodes.set(damagedId, restarted);
      await restarted.waitForLog(
        /flushed data lost: truncating and rejoining as an observer/,
        PROGRESS_TIMEOUT_MS,
      );
      await restarted.waitForLog(/running as a non-voting observer/, PROGRESS_TIMEOUT_MS);
      await restarted.waitForLog(/lost flushed data fetched back: voting again/, PROGRESS_TIMEOUT_MS);
      expect(restarted.stderrLines.some((line) => /truncated a torn log tail/.test(line))).toBe(false);
      // Meanwhile it never campaigned (and an observer grants no vote).
      const transitions = stateTransitions(restarted);
      expect(
        transitions.filter((transition) => transition.to === 'Prospective' || transition.to === 'Candidate'),
        describeTransitions(transitions),
      ).toEqual([]);

      // The quorum goes on committing with all three; then all stop and agree byte for byte.
      const target = (stats.highWatermark ?? 0) + 6000;
      await restarted.waitForStats(
        (line) => (line.highWatermark ?? 0) > target,
        PROGRESS_TIMEOUT_MS,
        `the recovered node past offset ${target}`,
      );
      const survivors = [...nodes.values()];
      await stopAll(survivors);
      const finalWatermarks = survivors.map((node) => node.latestStats()?.highWatermark ?? 0);
      expectIdenticalCommittedLogs(testCluster, [1, 2, 3], Math.min(...finalWatermarks));
    },
    SCENARIO_TIMEOUT_MS,
  );
});
