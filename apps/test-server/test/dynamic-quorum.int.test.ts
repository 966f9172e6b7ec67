import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  dynamicConfig,
  expectFormatted,
  metadataQuorumTool,
  replicationRows,
  storageTool,
} from './support/dynamic-quorum-tools.js';
import {
  committedPrefix,
  STARTUP_TIMEOUT_MS,
  stopAll,
  waitForCommittingLeader,
} from './support/quorum-checks.js';
import { DIRECTORY_IDS, pickFreePorts, TestCluster } from './support/test-cluster.js';
import { TestNode } from './support/test-node.js';

// Dynamic quorums (kraft.version 1, KIP-853) as an operator runs them: bin/kraft-storage.sh
// format, bin/test-kraft-server-start.sh with controller.quorum.bootstrap.servers and no
// controller.quorum.voters, bin/kraft-metadata-quorum.sh; real processes on 127.0.0.1, ports the
// OS gave.
const OBSERVER_ID = 4;
const CLUSTER_ID = 'dynamic-quorum-test';

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

describe('dynamic quorums (kraft.version 1) formatted with bin/kraft-storage.sh', () => {
  it('three --initial-controllers voters commit; a --no-initial-controllers node finds the leader through the bootstrap servers and replicates', async () => {
    cluster = await TestCluster.create(3);
    const testCluster = cluster;
    const ports = testCluster.ports;
    const initialControllers = [1, 2, 3]
      .map((nodeId) => `${nodeId}@127.0.0.1:${ports[nodeId - 1]}:${DIRECTORY_IDS[nodeId - 1]}`)
      .join(',');
    for (const nodeId of [1, 2, 3]) {
      writeFileSync(
        testCluster.configPath(nodeId),
        dynamicConfig({
          nodeId,
          port: ports[nodeId - 1] as number,
          logDirectory: testCluster.logDirectory(nodeId),
          bootstrapPorts: ports,
        }),
      );
      expectFormatted(
        storageTool(
          'format',
          '--config',
          testCluster.configPath(nodeId),
          '--cluster-id',
          CLUSTER_ID,
          '--initial-controllers',
          initialControllers,
        ),
      );
    }
    // `start` passes the DIRECTORY_IDS entry of each node, the one the checkpoint names it with.
    const voters = [1, 2, 3].map((nodeId) =>
      testCluster.start(nodeId, ['--require-formatted', '--throughput', '1000']),
    );
    const { node: leader } = await waitForCommittingLeader(voters, 500);
    const leaderId = leader.nodeId as number;

    // The observer knows one controller, a follower: it has to learn the leader from it.
    const followerId = [1, 2, 3].find((nodeId) => nodeId !== leaderId) as number;
    const [observerPort] = await pickFreePorts(1);
    const observerConfig = join(testCluster.root, `kraft-quorum-${OBSERVER_ID}.properties`);
    writeFileSync(
      observerConfig,
      dynamicConfig({
        nodeId: OBSERVER_ID,
        port: observerPort as number,
        logDirectory: testCluster.logDirectory(OBSERVER_ID),
        bootstrapPorts: [ports[followerId - 1] as number],
      }),
    );
    const observerFormat = storageTool(
      'format',
      '--config',
      observerConfig,
      '--cluster-id',
      CLUSTER_ID,
      '--no-initial-controllers',
    );
    expect(observerFormat.stderr).toBe('');
    expect(observerFormat.code).toBe(0);
    const observer = new TestNode({
      nodeId: OBSERVER_ID,
      configPath: observerConfig,
      extraArgs: ['--require-formatted'],
    });
    testCluster.nodes.set(OBSERVER_ID, observer);
    await observer.waitForLog(/"msg":"dynamic quorum without a bootstrap checkpoint/, STARTUP_TIMEOUT_MS);
    const observed = await observer.waitForStats(
      (stats) => stats.leaderId === leaderId && (stats.highWatermark ?? 0) > 500,
      STARTUP_TIMEOUT_MS,
      `the observer following leader ${leaderId} past offset 500`,
    );
    expect(observed.role).toBe('Follower');
    // What it replicated below its high watermark is the leader's committed log, byte for byte.
    const highWatermark = observed.highWatermark as number;
    const replicated = committedPrefix(testCluster, OBSERVER_ID, highWatermark);
    expect(replicated.length).toBeGreaterThan(0);
    expect(replicated.equals(committedPrefix(testCluster, leaderId, highWatermark))).toBe(true);

    const bootstrap = ['--bootstrap-controller', `127.0.0.1:${ports[followerId - 1]}`];
    const replication = await metadataQuorumTool(...bootstrap, 'describe', '--replication');
    expect(replication.stderr).toBe('');
    expect(replication.code).toBe(0);
    const rows = replicationRows(replication.stdout);
    expect(rows.map((row) => [row.nodeId, row.status])).toEqual([
      [leaderId, 'Leader'],
      ...[1, 2, 3].filter((nodeId) => nodeId !== leaderId).map((nodeId) => [nodeId, 'Follower']),
      [OBSERVER_ID, 'Observer'],
    ]);
    const observerRow = rows.find((row) => row.nodeId === OBSERVER_ID);
    expect(observerRow?.logEndOffset).toBeGreaterThanOrEqual(BigInt(highWatermark));

    // The voters are the checkpoint's: each with the directory id it was formatted with.
    const status = await metadataQuorumTool(...bootstrap, 'describe', '--status');
    expect(status.code).toBe(0);
    for (const nodeId of [1, 2, 3]) {
      expect(status.stdout).toContain(
        `{"id": ${nodeId}, "directoryId": "${DIRECTORY_IDS[nodeId - 1]}", "endpoints": ["PLAINTEXT://127.0.0.1:${ports[nodeId - 1]}"]}`,
      );
    }

    // The leader dies: the observer's fetches to it fail, it asks its bootstrap server again,
    // learns the next leader and replicates from it.
    await leader.killHard();
    const survivors = voters.filter((node) => node !== leader);
    const next = await waitForCommittingLeader(survivors, highWatermark);
    const nextLeaderId = next.node.nodeId as number;
    await observer.waitForStats(
      (stats) => stats.leaderId === nextLeaderId && (stats.highWatermark ?? 0) > next.stats.highWatermark!,
      STARTUP_TIMEOUT_MS,
      `the observer following the next leader ${nextLeaderId}`,
    );
    await stopAll([observer, ...survivors]);
  });

  it('a --standalone node elects itself at kraft.version 1 and commits', async () => {
    cluster = await TestCluster.create(1);
    const testCluster = cluster;
    const port = testCluster.ports[0] as number;
    writeFileSync(
      testCluster.configPath(1),
      dynamicConfig({ nodeId: 1, port, logDirectory: testCluster.logDirectory(1), bootstrapPorts: [port] }),
    );
    expectFormatted(
      storageTool(
        'format',
        '--config',
        testCluster.configPath(1),
        '--cluster-id',
        CLUSTER_ID,
        '--standalone',
      ),
    );
    // No --replica-directory-id: the node is the voter the checkpoint names, by the dir's id.
    const node = new TestNode({
      nodeId: 1,
      configPath: testCluster.configPath(1),
      extraArgs: ['--require-formatted', '--throughput', '1000'],
    });
    testCluster.nodes.set(1, node);
    await node.waitForLog(
      /"kraftVersion":1,.*"msg":"dynamic quorum: voters from the bootstrap checkpoint/,
      STARTUP_TIMEOUT_MS,
    );
    const { stats } = await waitForCommittingLeader([node], 50);
    expect(stats.epoch).toBeGreaterThanOrEqual(1);
    const status = await metadataQuorumTool(
      '--bootstrap-controller',
      `127.0.0.1:${port}`,
      'describe',
      '--status',
    );
    expect(status.code).toBe(0);
    // A static voter has no directory id (Kafka prints null); the checkpoint's voter has one.
    expect(status.stdout).toMatch(/CurrentVoters:\s+\[\{"id": 1, "directoryId": "[A-Za-z0-9_-]{22}"/);
    await stopAll([node]);
  });
});
