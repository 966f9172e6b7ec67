import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acknowledgedRecords,
  directoryIdOf,
  dynamicConfig,
  expectFormatted,
  metadataQuorumTool,
  parseQuorumStatus,
  type QuorumStatus,
  recordTags,
  replicationRows,
  storageTool,
} from './support/dynamic-quorum-tools.js';
import {
  expectIdenticalCommittedLogs,
  STARTUP_TIMEOUT_MS,
  sleep,
  stateTransitions,
  stopAll,
  waitForCommittingLeader,
} from './support/quorum-checks.js';
import { DIRECTORY_IDS, TestCluster } from './support/test-cluster.js';
import { TestNode } from './support/test-node.js';

// KIP-853 voter changes as an operator makes them, on real processes on 127.0.0.1 under the test
// server's workload: controllers formatted with bin/kraft-storage.sh, started with only
// controller.quorum.bootstrap.servers, replicated as observers, then added and removed with
// bin/kraft-metadata-quorum.sh add-controller / remove-controller.
const CLUSTER_ID = 'dynamic-voters-test';
/** A wait for the quorum to reach a state: generous, the machine may be loaded. */
const SETTLE_TIMEOUT_MS = 60_000;
/** Each test: a dozen tool runs and process starts, slow on a loaded machine. */
const TEST_TIMEOUT_MS = 300_000;

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

function historyFile(testCluster: TestCluster, nodeId: number): string {
  return join(testCluster.root, `history-${nodeId}.jsonl`);
}

function serverArgs(testCluster: TestCluster, nodeId: number): string[] {
  return ['--require-formatted', '--throughput', '1000', '--history-file', historyFile(testCluster, nodeId)];
}

function bootstrapOption(testCluster: TestCluster, nodeIds: readonly number[]): string[] {
  return [
    '--bootstrap-controller',
    nodeIds.map((nodeId) => `127.0.0.1:${testCluster.ports[nodeId - 1]}`).join(','),
  ];
}

/** Writes node `nodeId`'s dynamic config (bootstrap servers `bootstrapIds`) and formats its dir. */
function formatNode(
  testCluster: TestCluster,
  nodeId: number,
  bootstrapIds: readonly number[],
  formatArgs: readonly string[],
): ReturnType<typeof storageTool> {
  writeFileSync(
    testCluster.configPath(nodeId),
    dynamicConfig({
      nodeId,
      port: testCluster.ports[nodeId - 1] as number,
      logDirectory: testCluster.logDirectory(nodeId),
      bootstrapPorts: bootstrapIds.map((id) => testCluster.ports[id - 1] as number),
    }),
  );
  return storageTool(
    'format',
    '--config',
    testCluster.configPath(nodeId),
    '--cluster-id',
    CLUSTER_ID,
    ...formatArgs,
  );
}

/**
 * Node 1 formatted `--standalone` and running as the committing leader; nodes 2 and 3 formatted
 * `--no-initial-controllers` with node 1 as bootstrap server, not started; with `autoJoin`,
 * their configs set `controller.quorum.auto.join.enable=true`.
 */
async function standaloneWithObservers(options: { autoJoin: boolean }) {
  cluster = await TestCluster.create(3);
  const testCluster = cluster;
  expectFormatted(formatNode(testCluster, 1, [1], ['--standalone']));
  for (const nodeId of [2, 3]) {
    const format = formatNode(testCluster, nodeId, [1], ['--no-initial-controllers']);
    expect(format.stderr).toBe('');
    expect(format.code).toBe(0);
    if (options.autoJoin) {
      appendFileSync(testCluster.configPath(nodeId), '\ncontroller.quorum.auto.join.enable=true\n');
    }
  }
  const founder = startFromDirectory(testCluster, 1);
  const first = await waitForCommittingLeader([founder], 500);
  return { testCluster, first };
}

/** Starts a node on its formatted dir with the directory id of its `meta.properties`. */
function startFromDirectory(testCluster: TestCluster, nodeId: number): TestNode {
  const node = new TestNode({
    nodeId,
    configPath: testCluster.configPath(nodeId),
    extraArgs: serverArgs(testCluster, nodeId),
  });
  testCluster.nodes.set(nodeId, node);
  return node;
}

async function describeStatus(
  testCluster: TestCluster,
  bootstrapIds: readonly number[],
): Promise<QuorumStatus> {
  const status = await metadataQuorumTool(
    ...bootstrapOption(testCluster, bootstrapIds),
    'describe',
    '--status',
  );
  expect(status.stderr, status.stdout).toBe('');
  expect(status.code).toBe(0);
  return parseQuorumStatus(status.stdout);
}

/**
 * Runs `probe` every 500 ms until it returns a value, for up to SETTLE_TIMEOUT_MS; what it last
 * saw (`lastSeen`) goes into the timeout's message.
 */
async function poll<T>(
  what: string,
  probe: (lastSeen: (text: string) => void) => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const found = await probe((text) => {
      last = text;
    });
    if (found !== undefined) return found;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}; last seen:\n${last}`);
}

/** Polls `describe --status` until `predicate` holds of the leader's answer; the tool may fail meanwhile. */
function waitForStatus(
  testCluster: TestCluster,
  bootstrapIds: readonly number[],
  predicate: (status: QuorumStatus) => boolean,
  what: string,
): Promise<QuorumStatus> {
  return poll(what, async (lastSeen) => {
    const run = await metadataQuorumTool(
      ...bootstrapOption(testCluster, bootstrapIds),
      'describe',
      '--status',
    );
    lastSeen(`${run.code}\n${run.stdout}${run.stderr}`);
    if (run.code !== 0) return undefined;
    const status = parseQuorumStatus(run.stdout);
    return predicate(status) ? status : undefined;
  });
}

/**
 * Waits until the leader lists observer `nodeId` with a log end offset at or past the high
 * watermark it stated just before: the observer has caught up (ADR 0047's rule, from outside).
 */
async function waitForCaughtUpObserver(
  testCluster: TestCluster,
  bootstrapIds: readonly number[],
  nodeId: number,
): Promise<void> {
  const bootstrap = bootstrapOption(testCluster, bootstrapIds);
  await poll(`observer ${nodeId} caught up`, async (lastSeen) => {
    const status = await metadataQuorumTool(...bootstrap, 'describe', '--status');
    const replication = await metadataQuorumTool(...bootstrap, 'describe', '--replication');
    lastSeen(`${status.stdout}${status.stderr}${replication.stdout}${replication.stderr}`);
    if (status.code !== 0 || replication.code !== 0) return undefined;
    const { highWatermark } = parseQuorumStatus(status.stdout);
    const row = replicationRows(replication.stdout).find((candidate) => candidate.nodeId === nodeId);
    const caughtUp = row?.status === 'Observer' && highWatermark > 0n && row.logEndOffset >= highWatermark;
    return caughtUp ? true : undefined;
  });
}

/** The last lines of every node's output, for a failure message. */
function nodeTails(testCluster: TestCluster): string {
  return [...testCluster.nodes].map(([nodeId, node]) => `--- node ${nodeId}:\n${node.tail(15)}`).join('\n');
}

/** `add-controller` with the controller's own config: it must succeed at the first try. */
async function addController(
  testCluster: TestCluster,
  bootstrapIds: readonly number[],
  nodeId: number,
): Promise<void> {
  const run = await metadataQuorumTool(
    ...bootstrapOption(testCluster, bootstrapIds),
    '--command-config',
    testCluster.configPath(nodeId),
    'add-controller',
  );
  expect(run.stderr, nodeTails(testCluster)).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(
    `Added controller ${nodeId} with directory id ${directoryIdOf(testCluster.logDirectory(nodeId))} and endpoints: PLAINTEXT://127.0.0.1:${testCluster.ports[nodeId - 1]}`,
  );
}

async function removeController(
  testCluster: TestCluster,
  bootstrapIds: readonly number[],
  nodeId: number,
): Promise<void> {
  const directoryId = directoryIdOf(testCluster.logDirectory(nodeId));
  const run = await metadataQuorumTool(
    ...bootstrapOption(testCluster, bootstrapIds),
    'remove-controller',
    '--controller-id',
    String(nodeId),
    '--controller-directory-id',
    directoryId,
  );
  expect(run.stderr, nodeTails(testCluster)).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`Removed  KRaft controller ${nodeId} with directory id ${directoryId}`);
}

/** The highest high watermark any of `nodes` reported so far. */
function highestHighWatermark(nodes: readonly TestNode[]): number {
  return Math.max(0, ...nodes.map((node) => node.latestStats()?.highWatermark ?? 0));
}

/**
 * Stops every node (the workload with them) after each one reported a high watermark past what
 * was committed when called, then checks the committed data: byte-identical on every node below
 * the smallest high watermark any node reported last, and every record a leader acknowledged
 * present at its offset with its tag, on every node below that, and past it on a majority of
 * `finalVoterIds` (all committed data is there).
 */
async function stopAndCheckCommittedData(
  testCluster: TestCluster,
  nodeIds: readonly number[],
  finalVoterIds: readonly number[],
): Promise<{ commonHighWatermark: number; acknowledged: number; epochs: number }> {
  const nodes = nodeIds.map((nodeId) => testCluster.node(nodeId));
  const committed = highestHighWatermark(nodes);
  await Promise.all(
    nodes.map((node) =>
      node.waitForStats(
        (stats) => (stats.highWatermark ?? 0) > committed,
        SETTLE_TIMEOUT_MS,
        `node ${node.nodeId} past the committed offset ${committed}`,
      ),
    ),
  );
  await stopAll(nodes);
  const finalHighWatermarks = nodes.map((node) => node.latestStats()?.highWatermark ?? 0);
  const commonHighWatermark = Math.min(...finalHighWatermarks);
  expect(commonHighWatermark).toBeGreaterThan(committed);
  expectIdenticalCommittedLogs(testCluster, nodeIds, commonHighWatermark);

  const acknowledged = acknowledgedRecords(nodeIds.map((nodeId) => historyFile(testCluster, nodeId)));
  expect(acknowledged.length).toBeGreaterThan(0);
  const highestAcknowledged = Math.max(...acknowledged.map((record) => record.offset));
  const tagsByNode = new Map(
    finalVoterIds.map((nodeId) => [nodeId, recordTags(testCluster, nodeId, highestAcknowledged + 1)]),
  );
  const majority = Math.floor(finalVoterIds.length / 2) + 1;
  const missing: string[] = [];
  for (const record of acknowledged) {
    const holders = finalVoterIds.filter(
      (nodeId) => tagsByNode.get(nodeId)?.get(record.offset) === record.tag,
    );
    // Below the common high watermark the logs are identical, so one voter holding it is all of them.
    const needed = record.offset < commonHighWatermark ? 1 : majority;
    if (holders.length < needed)
      missing.push(`${record.tag}@${record.offset} (on ${holders.join(',') || 'none'})`);
  }
  expect(missing.slice(0, 20), `${missing.length} acknowledged records missing`).toEqual([]);
  const epochs = new Set(acknowledged.map((record) => record.tag.split('/').slice(0, 2).join('/'))).size;
  return { commonHighWatermark, acknowledged: acknowledged.length, epochs };
}

describe('dynamic voters (kraft.version 1): add-controller and remove-controller on a running quorum', () => {
  it('grows 3 → 5 voters one at a time and shrinks back to 3, removing the leader first, under the workload', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    cluster = await TestCluster.create(5);
    const testCluster = cluster;
    const initialIds = [1, 2, 3];
    const initialControllers = initialIds
      .map((nodeId) => `${nodeId}@127.0.0.1:${testCluster.ports[nodeId - 1]}:${DIRECTORY_IDS[nodeId - 1]}`)
      .join(',');
    for (const nodeId of initialIds) {
      expectFormatted(
        formatNode(testCluster, nodeId, initialIds, ['--initial-controllers', initialControllers]),
      );
    }
    for (const nodeId of [4, 5]) {
      const format = formatNode(testCluster, nodeId, initialIds, ['--no-initial-controllers']);
      expect(format.stderr).toBe('');
      expect(format.code).toBe(0);
    }
    const voters = initialIds.map((nodeId) => startFromDirectory(testCluster, nodeId));
    const first = await waitForCommittingLeader(voters, 500);
    const allIds = [1, 2, 3, 4, 5];
    let status = await describeStatus(testCluster, initialIds);
    expect(status.voterIds).toEqual(initialIds);

    // Grow: each new controller replicates as an observer, catches up, then is added.
    for (const nodeId of [4, 5]) {
      const observer = startFromDirectory(testCluster, nodeId);
      await observer.waitForStats(
        (stats) => stats.leaderId !== undefined && (stats.highWatermark ?? 0) > 0,
        STARTUP_TIMEOUT_MS,
        `observer ${nodeId} following a leader`,
      );
      await waitForCaughtUpObserver(testCluster, initialIds, nodeId);
      await addController(testCluster, initialIds, nodeId);
      status = await describeStatus(testCluster, initialIds);
      expect(status.voterIds).toContain(nodeId);
      expect(status.observerIds).not.toContain(nodeId);
    }
    expect(status.voterIds).toEqual(allIds);
    // Five voters, the new ones replicating as followers now, and the leader keeps committing.
    const replication = await metadataQuorumTool(
      ...bootstrapOption(testCluster, allIds),
      'describe',
      '--replication',
    );
    expect(replication.code).toBe(0);
    const statuses = new Map(replicationRows(replication.stdout).map((row) => [row.nodeId, row.status]));
    for (const nodeId of [4, 5]) expect(['Leader', 'Follower']).toContain(statuses.get(nodeId));
    await waitForCommittingLeader(
      allIds.map((nodeId) => testCluster.node(nodeId)),
      highestHighWatermark(voters),
      first.stats.epoch,
    );

    // Shrink: remove the current leader. It leads until the removal commits, then resigns, and
    // one of the four remaining voters takes over and keeps committing.
    const removedLeaderId = status.leaderId;
    const removedLeader = testCluster.node(removedLeaderId);
    const remainingIds = allIds.filter((nodeId) => nodeId !== removedLeaderId);
    await removeController(testCluster, allIds, removedLeaderId);
    await removedLeader.waitForLog(/"to":"Resigned".*"msg":"quorum state transition"/, SETTLE_TIMEOUT_MS);
    const resignedAt = stateTransitions(removedLeader).find((transition) => transition.to === 'Resigned');
    expect(resignedAt?.epoch).toBe(status.leaderEpoch);
    const takeover = await waitForCommittingLeader(
      remainingIds.map((nodeId) => testCluster.node(nodeId)),
      highestHighWatermark([removedLeader]),
      status.leaderEpoch + 1,
      SETTLE_TIMEOUT_MS,
    );
    expect(remainingIds).toContain(takeover.node.nodeId);
    status = await waitForStatus(
      testCluster,
      remainingIds,
      (current) => current.leaderId === takeover.node.nodeId && current.observerIds.includes(removedLeaderId),
      `leader ${takeover.node.nodeId} listing the removed ${removedLeaderId} as an observer`,
    );
    expect(status.voterIds).toEqual(remainingIds);

    // Then one more, a follower, back to three voters.
    const removedFollowerId = remainingIds.find((nodeId) => nodeId !== status.leaderId) as number;
    const finalVoterIds = remainingIds.filter((nodeId) => nodeId !== removedFollowerId);
    await removeController(testCluster, remainingIds, removedFollowerId);
    status = await describeStatus(testCluster, finalVoterIds);
    expect(status.voterIds).toEqual(finalVoterIds);
    expect(status.leaderId).toBe(takeover.node.nodeId);
    await waitForCommittingLeader(
      finalVoterIds.map((nodeId) => testCluster.node(nodeId)),
      highestHighWatermark(remainingIds.map((nodeId) => testCluster.node(nodeId))),
      status.leaderEpoch,
      SETTLE_TIMEOUT_MS,
    );

    const checked = await stopAndCheckCommittedData(testCluster, allIds, finalVoterIds);
    // Acknowledged in the first leader's epoch and in its successor's.
    expect(checked.epochs).toBeGreaterThanOrEqual(2);
  });

  it('--standalone on one node, then two more added one at a time: three voters with the same committed log', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { testCluster, first } = await standaloneWithObservers({ autoJoin: false });
    let status = await describeStatus(testCluster, [1]);
    expect(status.voterIds).toEqual([1]);

    for (const nodeId of [2, 3]) {
      const observer = startFromDirectory(testCluster, nodeId);
      await observer.waitForStats(
        (stats) => stats.leaderId === 1 && (stats.highWatermark ?? 0) > 0,
        STARTUP_TIMEOUT_MS,
        `observer ${nodeId} following node 1`,
      );
      await waitForCaughtUpObserver(testCluster, [1], nodeId);
      await addController(testCluster, [1], nodeId);
      status = await describeStatus(testCluster, [1]);
      expect(status.voterIds).toContain(nodeId);
    }
    expect(status.voterIds).toEqual([1, 2, 3]);
    expect(status.observerIds).toEqual([]);
    expect(status.leaderId).toBe(1);
    // Still the founder's epoch: the voters joined, nobody had to campaign.
    expect(status.leaderEpoch).toBe(first.stats.epoch);
    const nodes = [1, 2, 3].map((nodeId) => testCluster.node(nodeId));
    await waitForCommittingLeader(nodes, highestHighWatermark(nodes));
    await stopAndCheckCommittedData(testCluster, [1, 2, 3], [1, 2, 3]);
  });

  it('controller.quorum.auto.join.enable: two observers formatted --no-initial-controllers join a --standalone voter on their own', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { testCluster, first } = await standaloneWithObservers({ autoJoin: true });
    startFromDirectory(testCluster, 2);
    startFromDirectory(testCluster, 3);
    // No add-controller: each observer asks the leader itself once caught up, one at a time.
    const status = await waitForStatus(
      testCluster,
      [1],
      (candidate) => candidate.voterIds.join(',') === '1,2,3',
      'voters 1, 2 and 3',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${nodeTails(testCluster)}`);
    });
    expect(status.observerIds).toEqual([]);
    expect(status.leaderEpoch).toBe(first.stats.epoch);
    // The joined voters keep voting across restarts (their dirs were formatted without voters:
    // the set comes from their logs): node 3 restarts, then the founder stops and 2 and 3 elect
    // a leader between them before it comes back.
    await testCluster.node(3).stop();
    startFromDirectory(testCluster, 3);
    await waitForStatus(
      testCluster,
      [1],
      (candidate) => candidate.voterIds.join(',') === '1,2,3' && candidate.observerIds.length === 0,
      'node 3 back as a voter',
    );
    await testCluster.node(1).stop();
    const successor = await waitForStatus(
      testCluster,
      [2, 3],
      (candidate) => candidate.leaderId === 2 || candidate.leaderId === 3,
      'a leader among the joined voters 2 and 3',
    );
    expect(successor.voterIds).toEqual([1, 2, 3]);
    startFromDirectory(testCluster, 1);
    const nodes = [1, 2, 3].map((nodeId) => testCluster.node(nodeId));
    await waitForCommittingLeader(nodes, highestHighWatermark(nodes));
    await stopAndCheckCommittedData(testCluster, [1, 2, 3], [1, 2, 3]);
  });
});
