import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STARTUP_TIMEOUT_MS, waitForCommittingLeader } from './support/quorum-checks.js';
import { runScript, type ScriptRun } from './support/run-script.js';
import { DIRECTORY_IDS, pickFreePorts, TestCluster } from './support/test-cluster.js';
import { TestNode } from './support/test-node.js';

// Runs bin/kraft-metadata-quorum.sh as an operator would (bash, the real exit codes) against
// three test servers and a broker-only observer, pointed at a follower.
const SCRIPT = join(import.meta.dirname, '..', 'bin', 'kraft-metadata-quorum.sh');
const OBSERVER_ID = 4;
const OBSERVER_DIRECTORY_ID = 'wZoXPqWoSu6F6c8MkmdyAg';

function runTool(...argv: string[]): Promise<ScriptRun> {
  return runScript(SCRIPT, argv);
}

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

/** A broker-only node (an observer: it fetches, never votes) on a free port, in the cluster's dir. */
async function startObserver(
  testCluster: TestCluster,
): Promise<{ node: TestNode; configPath: string; logDir: string }> {
  const [port] = await pickFreePorts(1);
  const logDir = join(testCluster.root, `kraft-logs-${OBSERVER_ID}`);
  const configPath = join(testCluster.root, `kraft-observer-${OBSERVER_ID}.properties`);
  const config = [
    `node.id=${OBSERVER_ID}`,
    'process.roles=broker',
    `listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=PLAINTEXT',
    `controller.quorum.voters=${testCluster.votersLine(1)}`,
    `log.dirs=${logDir}`,
  ];
  writeFileSync(configPath, config.join('\n'));
  const node = new TestNode({ nodeId: OBSERVER_ID, configPath, directoryId: OBSERVER_DIRECTORY_ID });
  testCluster.nodes.set(OBSERVER_ID, node);
  return { node, configPath, logDir };
}

describe('bin/kraft-metadata-quorum.sh against three test servers and an observer', () => {
  it('describes every voter and the observer from a follower, and reports the leader refusing voter changes', async () => {
    cluster = await TestCluster.create(3);
    const testCluster = cluster;
    const voters = [1, 2, 3].map((nodeId) => testCluster.start(nodeId, ['--throughput', '1000']));
    const observer = await startObserver(testCluster);
    const { node: leader, stats } = await waitForCommittingLeader(voters, 500);
    const leaderId = leader.nodeId as number;
    const follower = voters.find((node) => node !== leader) as TestNode;
    // The follower and the observer know the leader: they fetch from it.
    for (const node of [follower, observer.node]) {
      await node.waitForStats(
        (line) => line.leaderId === leaderId && line.logEndOffset > 0,
        STARTUP_TIMEOUT_MS,
        `node ${node.nodeId} following leader ${leaderId}`,
      );
    }
    const port = (nodeId: number): number => testCluster.ports[nodeId - 1] as number;
    const bootstrap = ['--bootstrap-controller', `127.0.0.1:${port(follower.nodeId as number)}`];

    const status = await runTool(...bootstrap, 'describe', '--status');
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const statusLines = status.stdout.trimEnd().split('\n');
    expect(statusLines).toHaveLength(8);
    expect(statusLines[0]).toBe('ClusterId:              AAAAAAAAAAAAAAAAAAAAAA');
    expect(statusLines[1]).toBe(`LeaderId:               ${leaderId}`);
    expect(Number(/^LeaderEpoch:\s+(\d+)$/.exec(statusLines[2] ?? '')?.[1])).toBeGreaterThanOrEqual(
      stats.epoch,
    );
    expect(Number(/^HighWatermark:\s+(\d+)$/.exec(statusLines[3] ?? '')?.[1])).toBeGreaterThan(500);
    expect(statusLines[4]).toMatch(/^MaxFollowerLag:\s+\d+$/);
    expect(statusLines[5]).toMatch(/^MaxFollowerLagTimeMs:\s+-?\d+$/);
    // Static voters (controller.quorum.voters, kraft.version 0) carry no directory id: Kafka prints null.
    const voterEntries = [1, 2, 3].map(
      (nodeId) =>
        `{"id": ${nodeId}, "directoryId": null, "endpoints": ["PLAINTEXT://127.0.0.1:${port(nodeId)}"]}`,
    );
    expect(statusLines[6]).toBe(`CurrentVoters:          [${voterEntries.join(', ')}]`);
    expect(statusLines[7]).toBe(
      `CurrentObservers:       [{"id": ${OBSERVER_ID}, "directoryId": "${OBSERVER_DIRECTORY_ID}"}]`,
    );

    const replication = await runTool(...bootstrap, 'describe', '--replication');
    expect(replication.stderr).toBe('');
    expect(replication.code).toBe(0);
    const [header, ...rows] = replication.stdout.trimEnd().split('\n');
    expect(header).toMatch(
      /^NodeId\s+DirectoryId\s+LogEndOffset\s+Lag\s+LastFetchTimestamp\s+LastCaughtUpTimestamp\s+Status\s+$/,
    );
    const cells = rows.map((row) => row.split('\t').map((cell) => cell.trim()));
    expect(cells.map((row) => [Number(row[0]), row[6]])).toEqual([
      [leaderId, 'Leader'],
      ...[1, 2, 3].filter((nodeId) => nodeId !== leaderId).map((nodeId) => [nodeId, 'Follower']),
      [OBSERVER_ID, 'Observer'],
    ]);
    const leaderLogEndOffset = BigInt(cells[0]?.[2] as string);
    expect(leaderLogEndOffset).toBeGreaterThan(500n);
    for (const row of cells) {
      const nodeId = Number(row[0]);
      // The observer's fetches name its directory id; a static voter's key has none (the zero Uuid).
      expect(row[1]).toBe(nodeId === OBSERVER_ID ? OBSERVER_DIRECTORY_ID : 'AAAAAAAAAAAAAAAAAAAAAA');
      const logEndOffset = BigInt(row[2] as string);
      expect(logEndOffset).toBeGreaterThan(0n);
      expect(BigInt(row[3] as string)).toBe(leaderLogEndOffset - logEndOffset);
      expect(Number(row[4])).toBeGreaterThan(1_600_000_000_000);
      expect(Number(row[5])).toBeGreaterThan(1_600_000_000_000);
    }

    const humanReadable = await runTool(...bootstrap, 'describe', '--re', '--hu');
    expect(humanReadable.code).toBe(0);
    const leaderRow = humanReadable.stdout.split('\n')[1]?.split('\t') ?? [];
    expect(leaderRow[4]).toMatch(/^\d+ ms ago\s*$/);
    expect(leaderRow[5]).toMatch(/^\d+ ms ago\s*$/);

    const followerId = follower.nodeId as number;
    const remove = await runTool(
      ...bootstrap,
      'remove-controller',
      '--controller-id',
      String(followerId),
      '--controller-directory-id',
      DIRECTORY_IDS[followerId - 1] as string,
    );
    expect(remove.code).toBe(1);
    expect(remove.stdout).toBe('');
    expect(remove.stderr.trimEnd()).toBe(
      `kraft-metadata-quorum.sh: RemoveRaftVoter refused by the leader at 127.0.0.1:${port(leaderId)}: UNSUPPORTED_VERSION (error code 35): Cluster doesn't support removing voter because the kraft.version feature is 0`,
    );

    // The observer's own config and log dir as a controller's (the tool reads node.id, the
    // directory id of its meta.properties and its listener); the leader refuses the change.
    const controllerConfig = join(testCluster.root, `kraft-controller-${OBSERVER_ID}.properties`);
    writeFileSync(
      controllerConfig,
      [
        `node.id=${OBSERVER_ID}`,
        'listeners=PLAINTEXT://127.0.0.1:9999',
        'controller.listener.names=PLAINTEXT',
        `log.dirs=${observer.logDir}`,
      ].join('\n'),
    );
    const add = await runTool(...bootstrap, '--command-config', controllerConfig, 'add-controller');
    expect(add.code).toBe(1);
    expect(add.stderr.trimEnd()).toBe(
      `kraft-metadata-quorum.sh: AddRaftVoter refused by the leader at 127.0.0.1:${port(leaderId)}: UNSUPPORTED_VERSION (error code 35): Cluster doesn't support adding voter because the kraft.version feature is 0`,
    );
  });

  it('exits 1 naming each controller when none answers', async () => {
    const ports = await pickFreePorts(2);
    const run = await runTool(
      '--bootstrap-controller',
      ports.map((port) => `127.0.0.1:${port}`).join(','),
      '--command-timeout-ms',
      '1500',
      'describe',
      '--status',
    );
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd()).toBe(
      `kraft-metadata-quorum.sh: no controller answered DescribeQuorum as the quorum leader within 1500 ms; tried ${ports
        .map(
          (port) => `127.0.0.1:${port} (cannot connect, or the connection was lost (BROKER_NOT_AVAILABLE))`,
        )
        .join(', ')}`,
    );
  });
});
