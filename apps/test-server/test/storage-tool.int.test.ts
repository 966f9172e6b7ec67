import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Uuid } from '@kraft/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { describeQuorum } from './support/describe-quorum.js';
import { STARTUP_TIMEOUT_MS, stopAll, waitForCommittingLeader } from './support/quorum-checks.js';
import { PARTITION_DIRECTORY, TestCluster } from './support/test-cluster.js';
import { TestNode } from './support/test-node.js';

// bin/kraft-storage.sh and bin/test-kraft-server-start.sh as an operator runs them: through bash,
// the real exit codes and files, on 127.0.0.1 with ports the OS gave.
const STORAGE_SCRIPT = join(import.meta.dirname, '..', 'bin', 'kraft-storage.sh');
const CHECKPOINT_FILE = '00000000000000000000-0000000000.checkpoint';

function storageTool(...argv: string[]) {
  const result = spawnSync(STORAGE_SCRIPT, argv, { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

describe('bin/kraft-storage.sh with the test server', () => {
  it('formats a dir the server then runs on with --require-formatted; a second format is refused', async () => {
    cluster = await TestCluster.create(1);
    const configPath = cluster.configPath(1);
    const logDirectory = cluster.logDirectory(1);

    const uuid = storageTool('random-uuid');
    expect(uuid.code).toBe(0);
    const clusterId = uuid.stdout.trim();
    expect(Uuid.fromString(clusterId).toString()).toBe(clusterId);

    const format = storageTool('format', '--config', configPath, '--cluster-id', clusterId);
    expect(format.stderr).toBe('');
    expect(format.code).toBe(0);
    expect(format.stdout).toBe(`Formatting metadata directory ${logDirectory} with kraft.version 0.\n`);
    const metaProperties = readFileSync(join(logDirectory, 'meta.properties'), 'latin1');
    expect(metaProperties).toContain(`cluster.id=${clusterId}\n`);
    const directoryId = /directory\.id=(\S+)/.exec(metaProperties)?.[1] as string;

    const info = storageTool('info', '--config', configPath);
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(
      `Found metadata: {cluster.id=${clusterId}, directory.id=${directoryId}, node.id=1, version=1}`,
    );

    // No --replica-directory-id: the node runs with the one the tool wrote, and the tool's cluster id.
    const node = new TestNode({
      nodeId: 1,
      configPath,
      extraArgs: ['--require-formatted', '--throughput', '1000'],
    });
    cluster.nodes.set(1, node);
    const { stats } = await waitForCommittingLeader([node], 50);
    expect(stats.epoch).toBeGreaterThanOrEqual(1);
    const checked = node.stderrLines.find((line) => line.includes('"msg":"log directory checked"'));
    expect(JSON.parse(checked as string)).toMatchObject({ formatted: false, clusterId, directoryId });
    const described = await describeQuorum('127.0.0.1', cluster.ports[0] as number);
    expect(described.topics[0]?.partitions[0]?.leaderId).toBe(1);

    // While it runs, a format is refused by the dir being formatted (and would be by its lock).
    const again = storageTool('format', '--config', configPath, '--cluster-id', clusterId);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `kraft-storage: Log directory ${logDirectory} is already formatted. Use --ignore-formatted to ignore this directory and format the others.\n`,
    );
    const ignored = storageTool(
      'format',
      '--config',
      configPath,
      '--cluster-id',
      clusterId,
      '--ignore-formatted',
    );
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toBe('All of the log directories are already formatted.\n');
    await stopAll([node]);
    expect(readFileSync(join(logDirectory, 'meta.properties'), 'latin1')).toBe(metaProperties);
  });

  it('--require-formatted refuses an unformatted dir, exit 1', async () => {
    cluster = await TestCluster.create(1);
    const node = new TestNode({
      nodeId: 1,
      configPath: cluster.configPath(1),
      extraArgs: ['--require-formatted'],
    });
    cluster.nodes.set(1, node);
    expect(await node.exited).toEqual({ code: 1, signal: null });
    expect(node.stderrLines.join('\n')).toContain(
      `log directory ${cluster.logDirectory(1)} is not formatted (no meta.properties) and --require-formatted was given`,
    );
  });

  it('a dir formatted --standalone (kraft.version 1) starts a one-voter dynamic quorum', async () => {
    cluster = await TestCluster.create(1);
    const staticConfigPath = cluster.configPath(1);
    const logDirectory = cluster.logDirectory(1);
    // The dynamic quorum's config: the same node and listener, bootstrap servers instead of voters.
    const dynamicConfigPath = join(cluster.root, 'dynamic.properties');
    writeFileSync(
      dynamicConfigPath,
      readFileSync(staticConfigPath, 'utf8').replace(
        /^controller\.quorum\.voters=.*$/m,
        `controller.quorum.bootstrap.servers=127.0.0.1:${cluster.ports[0]}`,
      ),
    );
    const refused = storageTool('format', '--config', staticConfigPath, '--cluster-id', 'c1', '--standalone');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('You cannot specify controller.quorum.voters and format the node with');
    const format = storageTool('format', '--config', dynamicConfigPath, '--cluster-id', 'c1', '--standalone');
    expect(format.stderr).toBe('');
    expect(format.code).toBe(0);
    const checkpoint = join(logDirectory, PARTITION_DIRECTORY, CHECKPOINT_FILE);
    expect(readdirSync(join(logDirectory, PARTITION_DIRECTORY))).toEqual([CHECKPOINT_FILE]);
    const info = storageTool('info', '--config', dynamicConfigPath);
    expect(info.stdout).toContain(
      `Found bootstrap checkpoint: ${checkpoint}\n  kraft.version: 1\n  voter 1: `,
    );
    expect(info.stdout).toContain(`endpoints=[PLAINTEXT://127.0.0.1:${cluster.ports[0]}]`);

    // The dir starts the node at kraft.version 1, the one voter the checkpoint names (the server
    // takes the dir's directory id); it elects itself and commits (dynamic-quorum.int.test.ts).
    const node = new TestNode({
      nodeId: 1,
      configPath: dynamicConfigPath,
      extraArgs: ['--throughput', '1000'],
    });
    cluster.nodes.set(1, node);
    await node.waitForLog(/"msg":"dynamic quorum: voters from the bootstrap checkpoint/, STARTUP_TIMEOUT_MS);
    await waitForCommittingLeader([node], 10);
    await stopAll([node]);
    expect(readdirSync(join(logDirectory, PARTITION_DIRECTORY))).toContain(CHECKPOINT_FILE);
  });

  it('keeps the quickstart behaviour: an unformatted dir is formatted on first start', async () => {
    cluster = await TestCluster.create(1);
    const node = cluster.start(1, ['--throughput', '1000']);
    await node.waitForLog(/"msg":"formatted log directory"/, STARTUP_TIMEOUT_MS);
    await waitForCommittingLeader([node], 10);
    await stopAll([node]);
    const info = storageTool('info', '--config', cluster.configPath(1));
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(
      'Found metadata: {cluster.id=AAAAAAAAAAAAAAAAAAAAAA, directory.id=b8tRS7h4TJ2Vt43Dp85v2A',
    );
  });
});
