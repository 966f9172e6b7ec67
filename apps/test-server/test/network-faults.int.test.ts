/**
 * Network faults between real test-server processes, through a user-space TCP fault proxy on
 * every directed link (TARGETS §4.8: no netem or iptables on this machine). What a cut of link
 * A→B means (who can *initiate*) is explained on `ProxyMesh`. Kafka's default timeouts throughout
 * (fetch 2 s, so check-quorum 3 s; election 1 s; request 2 s). Durations are reported with
 * console.info, never asserted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CutMode } from './support/fault-proxy.js';
import {
  committedPrefix,
  describeTransitions,
  expectIdenticalCommittedLogs,
  firstOffsetAfterEpoch,
  isLeader,
  STARTUP_TIMEOUT_MS,
  sleep,
  stateTransitions,
  stopAll,
  waitForCommittingLeader,
} from './support/quorum-checks.js';
import { TestCluster } from './support/test-cluster.js';
import type { StatsLine, TestNode } from './support/test-node.js';

/** Small on purpose: two cores, and a simulation running in the background. */
const WORKLOAD_ARGS = ['--throughput', '2000'] as const;
/** Generous: an election, catching up or rejoining takes seconds, but the machine is loaded. */
const PROGRESS_TIMEOUT_MS = 60_000;
/** Each scenario starts three processes and waits through several faults. */
const SCENARIO_TIMEOUT_MS = 180_000;
/** Records committed while a fault holds before it is healed: ~3 s of the workload. */
const RECORDS_DURING_FAULT = 6000;

let cluster: TestCluster | undefined;

afterEach(async () => {
  // Kills every node and closes every proxy, whether the test passed or not.
  await cluster?.destroy();
  cluster = undefined;
});

interface RunningQuorum {
  readonly testCluster: TestCluster;
  readonly nodes: Map<number, TestNode>;
  readonly leader: TestNode;
  readonly leaderStats: StatsLine;
}

/** Three proxied nodes, a leader past offset 2000 and both followers in its epoch. */
async function startProxiedQuorum(): Promise<RunningQuorum> {
  cluster = await TestCluster.create(3, '', 1000, { proxied: true });
  const testCluster = cluster;
  const nodes = new Map([1, 2, 3].map((nodeId) => [nodeId, testCluster.start(nodeId, [...WORKLOAD_ARGS])]));
  const { node: leader, stats: leaderStats } = await waitForCommittingLeader([...nodes.values()], 2000);
  for (const follower of [...nodes.values()].filter((node) => node !== leader)) {
    await follower.waitForStats(
      (line) => line.role === 'Follower' && line.epoch === leaderStats.epoch && (line.highWatermark ?? 0) > 0,
      STARTUP_TIMEOUT_MS,
      'a follower of the same epoch',
    );
    // Fetches really cross the proxies: a follower that connected to the leader's listener
    // directly (the leader's advertised endpoint, if it were its listener) would make every cut moot.
    const fetchLink = testCluster.mesh.link(idOf(follower), idOf(leader));
    expect(fetchLink.stats().openConnections, `${fetchLink.name} carries the fetches`).toBeGreaterThan(0);
  }
  return { testCluster, nodes, leader, leaderStats };
}

function highWatermarkOf(node: TestNode): number {
  return node.latestStats()?.highWatermark ?? 0;
}

function idOf(node: TestNode): number {
  return node.nodeId as number;
}

/** Waits for `node` to report following in epoch >= `minimumEpoch` with its high watermark past `offset`. */
async function waitForFollowerPast(node: TestNode, minimumEpoch: number, offset: number, what: string) {
  return node.waitForStats(
    (line) => line.role === 'Follower' && line.epoch >= minimumEpoch && (line.highWatermark ?? 0) > offset,
    PROGRESS_TIMEOUT_MS,
    what,
  );
}

/** The highest high watermark any node has reported: a later line past it was printed after this call. */
function committedSoFar(nodes: ReadonlyMap<number, TestNode>): number {
  return Math.max(...[...nodes.values()].map(highWatermarkOf));
}

/**
 * Waits until every node has reported a high watermark past `mustCover` (stats lines come once a
 * second, and none is printed at shutdown), then SIGTERM all and check: identical committed logs
 * covering `mustCover`, which begin with the prefix committed before the faults.
 */
async function stopAndCheckLogs(
  quorum: RunningQuorum,
  prefixBeforeFaults: Buffer,
  mustCover: number,
): Promise<number> {
  const all = [...quorum.nodes.values()];
  await Promise.all(
    all.map((node) =>
      node.waitForStats(
        (line) => (line.highWatermark ?? 0) > mustCover,
        PROGRESS_TIMEOUT_MS,
        `node ${node.nodeId} to report a high watermark past ${mustCover}`,
      ),
    ),
  );
  await stopAll(all);
  console.info(`log lines at warn or above: ${all.map(describeWarnings).join('; ')}`);
  const finalHighWatermark = Math.min(...all.map(highWatermarkOf));
  expect(finalHighWatermark).toBeGreaterThan(mustCover);
  const identical = expectIdenticalCommittedLogs(quorum.testCluster, [1, 2, 3], finalHighWatermark);
  expect(identical.length).toBeGreaterThanOrEqual(prefixBeforeFaults.length);
  expect(identical.subarray(0, prefixBeforeFaults.length).equals(prefixBeforeFaults)).toBe(true);
  return finalHighWatermark;
}

/** `node 2: 3× "disconnected", 1× "pre-vote timed out ..."`: what went wrong, for the report. */
function describeWarnings(node: TestNode): string {
  const counts = new Map<string, number>();
  for (const line of node.stderrLines) {
    const match = /^\{"level":(\d+).*"msg":"([^"]*)"/.exec(line);
    if (match === null || Number(match[1]) < 40) continue;
    const key = `${match[1] === '40' ? 'warn' : 'ERROR'} ${match[2]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const summary = [...counts].map(([message, count]) => `${count}× ${message}`).join(', ');
  return `node ${node.nodeId}: ${summary || 'none'}`;
}

const elapsedMs = (sinceMs: number): number => Math.round(performance.now() - sinceMs);

describe('network faults between real test-server processes (fault proxies on 127.0.0.1)', () => {
  it.each<CutMode>(['reset', 'blackhole'])(
    'leader isolation (%s): the majority elects a new leader and keeps committing, the old leader commits nothing new and rejoins as follower after heal',
    async (mode) => {
      const quorum = await startProxiedQuorum();
      const { testCluster, nodes, leader: oldLeader, leaderStats } = quorum;
      const oldLeaderId = idOf(oldLeader);
      const committedBeforeFault = highWatermarkOf(oldLeader);
      const prefixBeforeFault = committedPrefix(testCluster, oldLeaderId, committedBeforeFault);
      const seenStats = oldLeader.stats.length;
      const seenTransitions = stateTransitions(oldLeader).length;

      const cutAtMs = performance.now();
      const cutAtWallClockMs = Date.now();
      testCluster.mesh.isolate(oldLeaderId, mode);
      const survivors = [...nodes.values()].filter((node) => node !== oldLeader);
      const handover = await waitForCommittingLeader(
        survivors,
        committedBeforeFault,
        leaderStats.epoch + 1,
        PROGRESS_TIMEOUT_MS,
      );
      const failoverMs = elapsedMs(cutAtMs);
      // Check-quorum (1.5 × fetch timeout) makes the isolated leader give up on its own.
      await oldLeader.waitForStats(
        (line) => oldLeader.stats.indexOf(line) >= seenStats && !isLeader(line),
        PROGRESS_TIMEOUT_MS,
        'the isolated leader to give up leadership',
      );
      const resignedAfterMs = elapsedMs(cutAtMs);
      // Let the new leader commit a good stretch the old one has never seen.
      const committedAtHandover = handover.stats.highWatermark ?? 0;
      await handover.node.waitForStats(
        (line) => isLeader(line) && (line.highWatermark ?? 0) > committedAtHandover + RECORDS_DURING_FAULT,
        PROGRESS_TIMEOUT_MS,
        'the new leader to keep committing',
      );

      const isolatedStats = oldLeader.stats.slice(seenStats);
      const isolatedTransitions = stateTransitions(oldLeader).slice(seenTransitions);
      const maxIsolatedHighWatermark = Math.max(0, ...isolatedStats.map((line) => line.highWatermark ?? 0));
      testCluster.mesh.healAll();
      const healAtMs = performance.now();
      const committedAtHeal = committedSoFar(nodes);
      const rejoined = await waitForFollowerPast(
        oldLeader,
        handover.stats.epoch,
        committedAtHeal,
        'the old leader to rejoin as follower and catch up',
      );
      console.info(
        `leader isolation (${mode}): old leader ${oldLeaderId} epoch ${leaderStats.epoch}, ` +
          `new leader ${idOf(handover.node)} committing in epoch ${handover.stats.epoch} after ${failoverMs} ms, ` +
          `old leader left leadership after ${resignedAfterMs} ms (stats lines ±1 s); ` +
          `old leader while isolated: ${describeTransitions(isolatedTransitions)}, ` +
          `high watermark ${committedBeforeFault} at the cut, at most ${maxIsolatedHighWatermark} while isolated; ` +
          `after heal: follower in epoch ${rejoined.epoch} past ${committedAtHeal} after ${elapsedMs(healAtMs)} ms; ` +
          `old leader's transitions since the cut: ${describeTransitions(stateTransitions(oldLeader).slice(seenTransitions), cutAtWallClockMs)}; ` +
          `new leader's: ${describeTransitions(stateTransitions(handover.node), cutAtWallClockMs)}`,
      );

      await stopAndCheckLogs(quorum, prefixBeforeFault, committedAtHeal);
      // Nothing the isolated leader called committed lies beyond what the majority kept of its epoch.
      const newEpochStartOffset = firstOffsetAfterEpoch(
        testCluster.readLogBytes(idOf(handover.node)),
        leaderStats.epoch,
      );
      expect(newEpochStartOffset).toBeDefined();
      expect(maxIsolatedHighWatermark).toBeLessThanOrEqual(newEpochStartOffset as number);
      // It left leadership without hearing from anyone (check-quorum), never leading a later epoch alone.
      expect(isolatedTransitions.some((transition) => transition.to === 'Resigned')).toBe(true);
      expect(isolatedTransitions.some((transition) => transition.to === 'Leader')).toBe(false);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'one-way cuts: a follower that cannot reach the leader (the leader still reaches it), then a leader that can reach no one (everyone still reaches it); the majority commits and all catch up',
    async () => {
      const quorum = await startProxiedQuorum();
      const { testCluster, nodes, leader, leaderStats } = quorum;
      const leaderId = idOf(leader);
      const [cutFollower, otherFollower] = [...nodes.values()].filter((node) => node !== leader) as [
        TestNode,
        TestNode,
      ];
      const cutFollowerId = idOf(cutFollower);
      const committedBeforeFault = highWatermarkOf(leader);
      const prefixBeforeFault = committedPrefix(testCluster, leaderId, committedBeforeFault);
      const seenTransitions = stateTransitions(cutFollower).length;

      // Phase 1: the follower's fetches (and the answers to them) are blackholed; the leader's
      // BeginQuorumEpoch still reaches it.
      const followerToLeader = testCluster.mesh.link(cutFollowerId, leaderId);
      followerToLeader.cut('blackhole');
      const cutAtWallClockMs = Date.now();
      const followerStalledAt = highWatermarkOf(cutFollower);
      const committing = await waitForCommittingLeader(
        [...nodes.values()],
        committedSoFar(nodes) + RECORDS_DURING_FAULT,
        leaderStats.epoch,
        PROGRESS_TIMEOUT_MS,
      );
      const stalledHighWatermark = highWatermarkOf(cutFollower);
      const phaseOneTransitions = stateTransitions(cutFollower).slice(seenTransitions);
      followerToLeader.heal();
      const healAtMs = performance.now();
      const committedAtHeal = committedSoFar(nodes);
      await waitForFollowerPast(
        cutFollower,
        leaderStats.epoch,
        committedAtHeal,
        'the cut follower to catch up',
      );
      console.info(
        `one-way ${cutFollowerId}→${leaderId} blackholed: leader ${idOf(committing.node)} kept committing in epoch ` +
          `${committing.stats.epoch} (was ${leaderStats.epoch}) past ${committing.stats.highWatermark}; ` +
          `the cut follower's high watermark went ${followerStalledAt} → ${stalledHighWatermark} while cut; ` +
          `its transitions: ${describeTransitions(phaseOneTransitions, cutAtWallClockMs) || 'none'}; ` +
          `caught up ${elapsedMs(healAtMs)} ms after heal`,
      );

      // Phase 2: the leader can initiate nothing (reset), but its followers' fetches reach it.
      const currentLeader = (await waitForCommittingLeader([...nodes.values()], committedAtHeal)).node;
      const currentLeaderId = idOf(currentLeader);
      const outbound = [...nodes.keys()]
        .filter((nodeId) => nodeId !== currentLeaderId)
        .map((nodeId) => testCluster.mesh.link(currentLeaderId, nodeId));
      for (const link of outbound) link.cut('reset');
      const committedAtSecondCut = committedSoFar(nodes);
      const followers = [...nodes.values()].filter((node) => node !== currentLeader);
      await Promise.all(
        followers.map((follower) =>
          waitForFollowerPast(
            follower,
            0,
            committedAtSecondCut + RECORDS_DURING_FAULT,
            'followers to keep fetching from a leader that cannot initiate',
          ),
        ),
      );
      for (const link of outbound) link.heal();
      console.info(
        `one-way: leader ${currentLeaderId}'s outbound links reset: followers ${followers.map(idOf).join(', ')} ` +
          `kept following past ${committedAtSecondCut + RECORDS_DURING_FAULT} (epoch ${currentLeader.latestStats()?.epoch}); ` +
          `other follower ${idOf(otherFollower)}'s transitions in the whole test: ` +
          `${describeTransitions(stateTransitions(otherFollower)) || 'none'}`,
      );

      await stopAndCheckLogs(quorum, prefixBeforeFault, committedAtSecondCut + RECORDS_DURING_FAULT);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'a slow, flapping follower link (50-200 ms per chunk, cut and healed three times): the quorum keeps committing and the follower catches up',
    async () => {
      const quorum = await startProxiedQuorum();
      const { testCluster, nodes, leader, leaderStats } = quorum;
      const leaderId = idOf(leader);
      const follower = [...nodes.values()].find((node) => node !== leader) as TestNode;
      const followerId = idOf(follower);
      const committedBeforeFault = highWatermarkOf(leader);
      const prefixBeforeFault = committedPrefix(testCluster, leaderId, committedBeforeFault);
      const links = [
        testCluster.mesh.link(followerId, leaderId),
        testCluster.mesh.link(leaderId, followerId),
      ];
      for (const link of links) link.setDelay(50, 200);
      const faultsStartWallClockMs = Date.now();

      const cycleModes: readonly CutMode[] = ['reset', 'blackhole', 'reset'];
      let committed = committedBeforeFault;
      const cycleReports: string[] = [];
      for (const mode of cycleModes) {
        // Healed but slow: the follower keeps up through the delay.
        const slowStartMs = performance.now();
        await waitForFollowerPast(follower, leaderStats.epoch, committed, 'the slow follower to keep up');
        const keptUpAfterMs = elapsedMs(slowStartMs);
        for (const link of links) link.cut(mode);
        const cutAtSeconds = ((Date.now() - faultsStartWallClockMs) / 1000).toFixed(1);
        const committedAtCut = committedSoFar(nodes);
        await sleep(3000);
        const { node: committingLeader, stats } = await waitForCommittingLeader(
          [...nodes.values()],
          committedAtCut + 1000,
          leaderStats.epoch,
          PROGRESS_TIMEOUT_MS,
        );
        committed = stats.highWatermark ?? committed;
        for (const link of links) link.heal();
        const healAtSeconds = ((Date.now() - faultsStartWallClockMs) / 1000).toFixed(1);
        cycleReports.push(
          `${mode} cut +${cutAtSeconds}s..+${healAtSeconds}s: kept up in ${keptUpAfterMs} ms, leader ${idOf(committingLeader)}@${stats.epoch} past ${committed} while cut`,
        );
      }
      for (const link of links) link.setDelay(0);
      const healAtMs = performance.now();
      const caughtUp = await waitForFollowerPast(
        follower,
        leaderStats.epoch,
        committed,
        'the follower to catch up after the last heal',
      );
      console.info(
        `flapping ${followerId}↔${leaderId}: ${cycleReports.join('; ')}; caught up (epoch ${caughtUp.epoch}) ` +
          `${elapsedMs(healAtMs)} ms after the last heal; follower transitions: ` +
          `${describeTransitions(stateTransitions(follower), faultsStartWallClockMs) || 'none'}`,
      );

      await stopAndCheckLogs(quorum, prefixBeforeFault, committed);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
