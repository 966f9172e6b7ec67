import { afterEach, describe, expect, it } from 'vitest';
import { describeQuorum } from './support/describe-quorum.js';
import {
  expectIdenticalCommittedLogs,
  isLeader,
  STARTUP_TIMEOUT_MS,
  stopAll,
  waitForCommittingLeader,
} from './support/quorum-checks.js';
import { bytesBelowOffset, TestCluster } from './support/test-cluster.js';
import { TestNode } from './support/test-node.js';

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

describe('test-kraft-server (real processes on 127.0.0.1)', () => {
  it('rejects a bad config with exit 1 and names the key, the value and what is expected', async () => {
    cluster = await TestCluster.create(1, 'controller.quorum.fetch.timeout.ms=soon');
    const node = cluster.start(1);
    expect(await node.exited).toEqual({ code: 1, signal: null });
    expect(node.stderrLines.join('\n')).toContain(
      "invalid value 'soon' for configuration controller.quorum.fetch.timeout.ms: expected a 32-bit integer",
    );
  });

  it('rejects a bad command line with usage and exit 2', async () => {
    cluster = await TestCluster.create(1);
    const node = new TestNode({ configPath: cluster.configPath(1), directoryId: 'not-a-uuid' });
    expect(await node.exited).toEqual({ code: 2, signal: null });
    expect(node.stderrLines.join('\n')).toContain('Usage: test-kraft-server-start.sh');
  });

  it('a single node elects itself, commits, stops cleanly, then recovers and rejoins on restart', async () => {
    cluster = await TestCluster.create(1);
    const first = cluster.start(1, ['--throughput', '2000']);
    const { stats } = await waitForCommittingLeader([first], 100);
    expect(stats.epoch).toBeGreaterThanOrEqual(1);
    const describe = await describeQuorum('127.0.0.1', cluster.ports[0] as number);
    expect(describe.errorCode).toBe(0);
    expect(describe.topics[0]?.partitions[0]?.leaderId).toBe(1);
    await stopAll([first]);
    const stoppedAt = first.latestStats()?.highWatermark ?? 0;
    expect(first.stderrLines.join('\n')).toContain('raft server stopped cleanly');

    const restarted = cluster.start(1, ['--throughput', '2000']);
    await restarted.waitForLog(/"msg":"opened log"/, STARTUP_TIMEOUT_MS);
    expect(restarted.stderrLines.find((line) => line.includes('"msg":"opened log"'))).toContain(
      '"clean":true',
    );
    const again = await waitForCommittingLeader([restarted], stoppedAt);
    expect(again.stats.epoch).toBeGreaterThan(stats.epoch);
    await stopAll([restarted]);
  });

  it('refuses a log dir formatted for another directory id and leaves it as it was', async () => {
    cluster = await TestCluster.create(1);
    const first = cluster.start(1);
    await first.waitForLog(/formatted log directory/, STARTUP_TIMEOUT_MS);
    await stopAll([first]);
    const other = new TestNode({ configPath: cluster.configPath(1), directoryId: 'Nkij_D9XRiYKNb41SiJo7Q' });
    expect(await other.exited).toEqual({ code: 1, signal: null });
    expect(other.stderrLines.join('\n')).toContain(
      'directory.id is b8tRS7h4TJ2Vt43Dp85v2A but the node was given directory id Nkij_D9XRiYKNb41SiJo7Q',
    );
  });

  it('three nodes elect one leader, commit at the requested rate, hand over on SIGTERM and agree byte for byte', async () => {
    const throughput = 2000;
    cluster = await TestCluster.create(3);
    const testCluster = cluster;
    const nodes = new Map(
      [1, 2, 3].map((nodeId) => [nodeId, testCluster.start(nodeId, ['--throughput', String(throughput)])]),
    );
    const { node: leader, stats } = await waitForCommittingLeader([...nodes.values()], 1000);
    for (const follower of [...nodes.values()].filter((node) => node !== leader)) {
      const followerLine = await follower.waitForStats(
        (line) => line.role === 'Follower' && line.epoch === stats.epoch && (line.highWatermark ?? 0) > 1000,
        STARTUP_TIMEOUT_MS,
        'a follower of the same epoch',
      );
      // Only the leader measures commit latency; a follower names whom it follows.
      expect([followerLine.leaderId, followerLine.p99Ms, followerLine.maxLatencyMs]).toEqual([
        leader.nodeId,
        undefined,
        undefined,
      ]);
    }
    // Five consecutive 1 s intervals in steady state, as the leader measured them.
    const start = leader.stats.length;
    await leader.waitForStats(() => leader.stats.length >= start + 5, 20_000, 'five more stats lines');
    const steady = leader.stats.slice(start, start + 5);
    expect(steady.every(isLeader)).toBe(true);
    expect(steady.every((line) => line.leaderId === leader.nodeId && line.p99Ms !== undefined)).toBe(true);
    const averageRate = steady.reduce((sum, line) => sum + line.recordsPerSecond, 0) / steady.length;
    expect(averageRate).toBeGreaterThan(throughput * 0.8);

    const leaderId = leader.nodeId as number;
    const describe = await describeQuorum('127.0.0.1', testCluster.ports[leaderId - 1] as number);
    expect(describe.errorCode).toBe(0);
    const partition = describe.topics[0]?.partitions[0];
    expect(partition?.leaderId).toBe(leaderId);
    expect(partition?.leaderEpoch).toBe(stats.epoch);
    expect(partition?.currentVoters.map((voter) => voter.replicaId).sort()).toEqual([1, 2, 3]);

    // SIGTERM: the leader resigns, flushes, closes and exits 0 (its hard deadline would exit 1).
    await stopAll([leader]);
    expect(leader.stderrLines.join('\n')).toContain('"to":"Resigned"');
    const committedByOldLeader = leader.latestStats()?.highWatermark ?? 0;
    const survivors = [...nodes.values()].filter((node) => node !== leader);
    const handover = await waitForCommittingLeader(survivors, committedByOldLeader, stats.epoch + 1);
    const restarted = testCluster.start(leaderId, ['--throughput', String(throughput)]);
    nodes.set(leaderId, restarted);
    await restarted.waitForStats(
      (line) => line.role === 'Follower' && (line.highWatermark ?? 0) > (handover.stats.highWatermark ?? 0),
      STARTUP_TIMEOUT_MS,
      'the restarted node to follow and catch up',
    );
    expect(restarted.stderrLines.find((line) => line.includes('"msg":"opened log"'))).toContain(
      '"clean":true',
    );

    const all = [...nodes.values()];
    await stopAll(all);
    const finalHighWatermark = Math.min(...all.map((node) => node.latestStats()?.highWatermark ?? 0));
    expect(finalHighWatermark).toBeGreaterThan(committedByOldLeader);
    expectIdenticalCommittedLogs(testCluster, [1, 2, 3], finalHighWatermark);
  });

  it('at full load (1 KiB records offered far above what commits) the nodes agree byte for byte', async () => {
    // Backpressure, 1 MiB batches completed before the linger expires, several batches per fetch
    // and per flush: the paths a low-rate run never takes.
    cluster = await TestCluster.create(3);
    const testCluster = cluster;
    const args = ['--throughput', '200000', '--record-size', '1024'];
    const nodes = [1, 2, 3].map((nodeId) => testCluster.start(nodeId, args));
    const { node: leader } = await waitForCommittingLeader(nodes, 50_000);
    const start = leader.stats.length;
    await leader.waitForStats(() => leader.stats.length >= start + 3, 20_000, 'three more stats lines');
    // A follower's last stats line may trail the leader's (it learns the high watermark a fetch
    // later and prints once a second): wait until each has printed one past 50,000.
    await Promise.all(
      nodes.map((node) =>
        node.waitForStats(
          (line) => (line.highWatermark ?? 0) > 50_000,
          STARTUP_TIMEOUT_MS,
          'every node past 50,000 committed',
        ),
      ),
    );
    await stopAll(nodes);
    const finalHighWatermark = Math.min(...nodes.map((node) => node.latestStats()?.highWatermark ?? 0));
    expect(finalHighWatermark).toBeGreaterThan(50_000);
    const committed = expectIdenticalCommittedLogs(testCluster, [1, 2, 3], finalHighWatermark);
    console.info(`full load: ${finalHighWatermark} records, ${committed.length} bytes identical on 3 nodes`);
  });

  it('kill -9 of the leader: a new leader commits, nothing committed is lost, the old leader catches up', async () => {
    cluster = await TestCluster.create(3);
    const testCluster = cluster;
    const nodes = new Map(
      [1, 2, 3].map((nodeId) => [nodeId, testCluster.start(nodeId, ['--throughput', '2000'])]),
    );
    const { node: oldLeader, stats } = await waitForCommittingLeader([...nodes.values()], 2000);
    const oldLeaderId = oldLeader.nodeId as number;
    const killedAtMs = performance.now();
    await oldLeader.killHard();
    const committedBeforeKill = oldLeader.latestStats()?.highWatermark ?? 0;
    const committedPrefix = (() => {
      const log = testCluster.readLogBytes(oldLeaderId);
      return Buffer.from(log.subarray(0, bytesBelowOffset(log, committedBeforeKill)));
    })();

    const survivors = [...nodes.values()].filter((node) => node !== oldLeader);
    const { stats: newLeaderStats } = await waitForCommittingLeader(
      survivors,
      committedBeforeKill,
      stats.epoch + 1,
    );
    expect(newLeaderStats.epoch).toBeGreaterThan(stats.epoch);
    // Reported, not asserted (no timing assertions): stats lines come every second.
    console.info(`kill -9 → new leader committing: ${Math.round(performance.now() - killedAtMs)} ms (±1 s)`);

    const restarted = testCluster.start(oldLeaderId, ['--throughput', '2000']);
    nodes.set(oldLeaderId, restarted);
    await restarted.waitForStats(
      (line) => line.role === 'Follower' && (line.highWatermark ?? 0) > (newLeaderStats.highWatermark ?? 0),
      STARTUP_TIMEOUT_MS,
      'the restarted node to follow and catch up',
    );

    const all = [...nodes.values()];
    await stopAll(all);
    const finalHighWatermark = Math.min(...all.map((node) => node.latestStats()?.highWatermark ?? 0));
    expect(finalHighWatermark).toBeGreaterThan(committedBeforeKill);
    const identical = expectIdenticalCommittedLogs(testCluster, [1, 2, 3], finalHighWatermark);
    expect(identical.subarray(0, committedPrefix.length).equals(committedPrefix)).toBe(true);
  });
});
