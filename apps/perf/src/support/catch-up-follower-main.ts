// Child-process entry of the catch-up follower (see catch-up-follower.ts): restarts one node from
// its (wiped) directory on its old port and reports its catch-up to the parent over IPC.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '@kraft/protocol';
import type { CatchUpFollowerSpec, CatchUpReport } from './catch-up-follower.js';
import {
  committedLogDigest,
  createClusterChannel,
  fileDigest,
  snapshotFilePath,
  startClusterNode,
} from './snapshot-cluster.js';

const POLL_INTERVAL_MS = 2;
const SHUTDOWN_TIMEOUT_MS = 2_000;

function send(message: unknown): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) throw new Error('not started with an IPC channel');
    process.send(message, undefined, undefined, () => resolve());
  });
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as CatchUpFollowerSpec;
  const stopRequested = new Promise<void>((resolve) =>
    process.on('message', (message) => message === 'stop' && resolve()),
  );
  const channel = createClusterChannel(spec.nodeId, spec.port, silentLogger);
  await channel.start();
  const rssAtStartBytes = process.memoryUsage.rss();
  const node = startClusterNode(spec, channel, silentLogger);
  let failure: unknown;
  node.stopped.catch((error: unknown) => {
    failure = error;
  });
  try {
    const deadlineMs = performance.now() + spec.timeoutMs;
    const { listener } = node;
    while (
      listener.lastCommittedOffset < spec.targetHighWatermark - 1 ||
      (node.client.highWatermark() ?? 0) < spec.targetHighWatermark
    ) {
      if (failure !== undefined) throw failure;
      if (performance.now() >= deadlineMs) {
        throw new Error(
          `not caught up after ${spec.timeoutMs} ms: committed ${listener.lastCommittedOffset}, target ${spec.targetHighWatermark}, role ${node.driver.state().role}`,
        );
      }
      await sleep(POLL_INTERVAL_MS);
    }
    const maxRssBytes = process.resourceUsage().maxRSS * 1024;
    const load = listener.snapshotLoads[0];
    const leaderKnownMs = listener.leaderKnownMs ?? Number.NaN;
    const report: CatchUpReport = {
      kind: 'caught-up',
      restartToLeaderKnownMs: leaderKnownMs - node.startedMs,
      snapshotTransferAndInstallMs: (load?.startedMs ?? Number.NaN) - leaderKnownMs,
      snapshotLoadMs: load === undefined ? Number.NaN : load.finishedMs - load.startedMs,
      tailFetchMs: listener.lastCommitMs - (load?.finishedMs ?? Number.NaN),
      restartToCaughtUpMs: listener.lastCommitMs - node.startedMs,
      snapshotLoads: listener.snapshotLoads.length,
      loadedSnapshotId: load?.snapshotId,
      loadedRecordCount: load?.recordCount ?? 0,
      rssAtStartBytes,
      maxRssBytes,
      snapshotFileDigest: fileDigest(snapshotFilePath(spec.directory, spec.snapshotId)),
      tail: committedLogDigest(node.log, spec.snapshotId.offset),
    };
    await send(report);
    await stopRequested;
  } catch (error) {
    await send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  } finally {
    try {
      await node.driver.shutdown(SHUTDOWN_TIMEOUT_MS);
    } finally {
      await channel.close();
      process.disconnect();
    }
  }
}

await main();
