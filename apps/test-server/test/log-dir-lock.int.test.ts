import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STARTUP_TIMEOUT_MS, stopAll, waitForCommittingLeader } from './support/quorum-checks.js';
import { TestCluster } from './support/test-cluster.js';
import { type ExitStatus, TestNode } from './support/test-node.js';

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

/** The exit of `node`, or a clear failure if it is still running after `timeoutMs`. */
async function exitWithin(node: TestNode, timeoutMs: number): Promise<ExitStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running after ${timeoutMs} ms:\n${node.tail()}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([node.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('test-kraft-server log-dir lock (real processes)', () => {
  it('a second server on the same log dir exits 1 naming the dir, and the first keeps committing', async () => {
    cluster = await TestCluster.create(1);
    const first = cluster.start(1, ['--throughput', '2000']);
    const { stats } = await waitForCommittingLeader([first], 100);
    // The same node and log dir on another port: without the lock it would start, read the log
    // and win epoch 2, replacing what the first had committed.
    const secondConfig = join(cluster.root, 'second-server.properties');
    const config = readFileSync(cluster.configPath(1), 'utf8');
    writeFileSync(secondConfig, config.replace(/^listeners=.*$/m, 'listeners=PLAINTEXT://127.0.0.1:0'));
    const second = new TestNode({
      nodeId: 1,
      configPath: secondConfig,
      directoryId: 'b8tRS7h4TJ2Vt43Dp85v2A',
    });
    expect(await exitWithin(second, STARTUP_TIMEOUT_MS)).toEqual({ code: 1, signal: null });
    expect(second.stderrLines.join('\n')).toContain(
      `Failed to acquire lock on file .lock in ${cluster.logDirectory(1)}. A Kafka instance in another process or thread is using this directory.`,
    );
    expect(second.stderrLines.join('\n')).not.toContain('opened log');
    const later = await waitForCommittingLeader([first], stats.highWatermark ?? 0);
    expect(later.stats.epoch).toBe(stats.epoch);
    await stopAll([first]);
  });

  it('a server killed with SIGKILL restarts on the same log dir: its lock died with it', async () => {
    cluster = await TestCluster.create(1);
    const first = cluster.start(1, ['--throughput', '2000']);
    const { stats } = await waitForCommittingLeader([first], 100);
    expect(await first.killHard()).toEqual({ code: null, signal: 'SIGKILL' });
    const committedBeforeKill = first.latestStats()?.highWatermark ?? 0;
    const restarted = cluster.start(1, ['--throughput', '2000']);
    const again = await waitForCommittingLeader([restarted], committedBeforeKill, stats.epoch + 1);
    expect(again.stats.epoch).toBeGreaterThan(stats.epoch);
    await stopAll([restarted]);
  });
});
