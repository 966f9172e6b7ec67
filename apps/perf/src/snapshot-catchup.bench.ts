// Snapshot catch-up (TARGETS P8): three voters in this process on the on-disk log and real TCP.
// The leader's application writes a large snapshot through `createSnapshot`, a log tail is
// committed above it, retention moves the log start to the snapshot, and one follower is stopped,
// wiped and restarted. Reported: the time from the restart to "caught up to the leader's high
// watermark", split into leader discovery, snapshot transfer + install (FetchSnapshot chunks into a
// file, then the log replaced by it), the application's snapshot load, and the tail fetch, with MB/s.
//
// The cluster runs in this process; the restarted follower runs in a child process of its own
// (support/catch-up-follower.ts), so its peak RSS is its own and it does not share the leader's
// event loop. Its snapshot file and the log above it are checked byte-identical to the leader's.
//
// Env: KRAFT_BENCH_SNAPSHOT_MIB (default 256), KRAFT_BENCH_TAIL_MIB (default 64),
// KRAFT_BENCH_SNAPSHOT_CHUNK_MIB (FetchSnapshot chunk, default Kafka's 1 MiB),
// KRAFT_BENCH_FETCH_MIB (Fetch max bytes, default Kafka's 1 MiB), KRAFT_BENCH_DIR (default os.tmpdir()).
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { DEFAULT_QUORUM_CONFIG } from '@kraft/raft';
import { type CatchUpFollower, spawnCatchUpFollower } from './support/catch-up-follower.js';
import {
  committedLogDigest,
  fileDigest,
  SnapshotCluster,
  snapshotFilePath,
} from './support/snapshot-cluster.js';

const MEBIBYTE = 1024 * 1024;
const KIBIBYTE = 1024;
/** TARGETS P8: caught up within 10 s. */
const TARGET_MS = 10_000;
/** Bounds on each setup step and on the catch-up itself: a hang fails the bench instead of stalling it. */
const SETUP_STEP_TIMEOUT_MS = 300_000;
const CATCH_UP_TIMEOUT_MS = 120_000;

function mebibytesSetting(name: string, defaultMebibytes: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? defaultMebibytes : Number(raw);
  if (!(value > 0)) throw new Error(`${name} must be a positive number of MiB, got ${raw}`);
  return Math.round(value * MEBIBYTE);
}

const snapshotBytes = mebibytesSetting('KRAFT_BENCH_SNAPSHOT_MIB', 256);
const tailBytes = mebibytesSetting('KRAFT_BENCH_TAIL_MIB', 64);
const snapshotChunkBytes = mebibytesSetting(
  'KRAFT_BENCH_SNAPSHOT_CHUNK_MIB',
  DEFAULT_QUORUM_CONFIG.fetchSnapshotMaxBytes / MEBIBYTE,
);
const fetchMaxBytes = mebibytesSetting(
  'KRAFT_BENCH_FETCH_MIB',
  DEFAULT_QUORUM_CONFIG.fetchMaxBytes / MEBIBYTE,
);

function row(label: string, value: string): void {
  process.stdout.write(`  ${label.padEnd(44)} ${value}\n`);
}

function phase(label: string, milliseconds: number, bytes?: number): void {
  const rate =
    bytes === undefined ? '' : `  ${(bytes / MEBIBYTE / (milliseconds / 1000)).toFixed(1).padStart(7)} MiB/s`;
  row(label, `${milliseconds.toFixed(0).padStart(7)} ms${rate}`);
}

function mebibytes(bytes: number): string {
  return `${(bytes / MEBIBYTE).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  const baseDirectory = process.env['KRAFT_BENCH_DIR'];
  const quorum = {
    // Kafka's timeouts otherwise; the fetch timeout is raised because setup writes and fsyncs
    // the snapshot on the event loop the three nodes share, which must not cost an election.
    fetchTimeoutMs: 10_000,
    requestTimeoutMs: 10_000,
    appendLingerMs: 5,
    fetchSnapshotMaxBytes: snapshotChunkBytes,
    fetchMaxBytes,
    logCleanIntervalMs: 200,
  };
  let follower: CatchUpFollower | undefined;
  const cluster = await SnapshotCluster.start({
    voterCount: 3,
    ...(baseDirectory === undefined ? {} : { baseDirectory }),
    quorum,
    // Retention below the snapshots' size: each pass keeps only the latest snapshot.
    log: { retentionMaxBytes: MEBIBYTE },
  });
  try {
    const leader = await cluster.waitForLeader(SETUP_STEP_TIMEOUT_MS);
    const setupStartedMs = performance.now();
    // Retention deletes only up to the next snapshot: a small first one, then the large one.
    await cluster.commitWorkload(MEBIBYTE, KIBIBYTE, 256, SETUP_STEP_TIMEOUT_MS);
    await cluster.writeLeaderSnapshot(64 * KIBIBYTE, KIBIBYTE, 64);
    await cluster.commitWorkload(MEBIBYTE, KIBIBYTE, 256, SETUP_STEP_TIMEOUT_MS);
    const snapshot = await cluster.writeLeaderSnapshot(snapshotBytes, 4 * KIBIBYTE, 256);
    await cluster.commitWorkload(tailBytes, KIBIBYTE, 256, SETUP_STEP_TIMEOUT_MS);
    await cluster.waitFor(
      'retention to move the log start to the snapshot',
      SETUP_STEP_TIMEOUT_MS,
      () => leader.log.startOffset() === snapshot.snapshotId.offset,
    );
    const setupMs = performance.now() - setupStartedMs;
    const targetHighWatermark = leader.log.highWatermark();

    const followerId = cluster.runningNodes().find((node) => node !== leader)?.nodeId;
    if (followerId === undefined) throw new Error('no follower');
    await cluster.stopNode(followerId);
    cluster.wipeNode(followerId);
    follower = spawnCatchUpFollower({
      nodeId: followerId,
      directory: cluster.nodeDirectory(followerId),
      port: cluster.portOf(followerId),
      votersConfig: cluster.votersConfig(),
      quorum,
      targetHighWatermark,
      snapshotId: snapshot.snapshotId,
      timeoutMs: CATCH_UP_TIMEOUT_MS,
    });
    const report = await follower.report;

    // Checked after the clock stopped: the snapshot and the log above it byte-identical to the leader's.
    if (report.snapshotLoads !== 1) throw new Error(`the follower loaded ${report.snapshotLoads} snapshots`);
    if (report.loadedRecordCount !== snapshot.recordCount)
      throw new Error('the loaded snapshot has other records');
    const leaderTail = committedLogDigest(leader.log, snapshot.snapshotId.offset);
    if (report.tail.digest !== leaderTail.digest)
      throw new Error('the follower log differs from the leader log');
    const leaderFile = fileDigest(
      snapshotFilePath(cluster.nodeDirectory(leader.nodeId), snapshot.snapshotId),
    );
    if (report.snapshotFileDigest !== leaderFile) throw new Error('the follower snapshot file differs');
    const fetchedTailBytes = report.tail.bytes;
    const totalMs = report.restartToCaughtUpMs;

    process.stdout.write(
      `snapshot catch-up: ${mebibytes(snapshot.sizeInBytes)} snapshot (${snapshot.recordCount} records) + ${mebibytes(fetchedTailBytes)} log tail; ` +
        `FetchSnapshot chunk ${mebibytes(snapshotChunkBytes)}, Fetch max ${mebibytes(fetchMaxBytes)}; ` +
        `setup ${(setupMs / 1000).toFixed(1)} s; load average ${loadavg()
          .map((value) => value.toFixed(2))
          .join(' ')}\n`,
    );
    phase('restart → leader known', report.restartToLeaderKnownMs);
    phase('snapshot transfer + install', report.snapshotTransferAndInstallMs, snapshot.sizeInBytes);
    phase('snapshot load by the listener', report.snapshotLoadMs, snapshot.sizeInBytes);
    phase('tail fetch', report.tailFetchMs, fetchedTailBytes);
    phase('restart → caught up to the HWM', totalMs, snapshot.sizeInBytes + fetchedTailBytes);
    row('target (P8)', `≤ ${TARGET_MS} ms: ${totalMs <= TARGET_MS ? 'met' : 'NOT met'}`);
    row(
      'follower process RSS at start → peak',
      `${mebibytes(report.rssAtStartBytes)} → ${mebibytes(report.maxRssBytes)} (+${mebibytes(report.maxRssBytes - report.rssAtStartBytes)})`,
    );
  } finally {
    await follower?.stop();
    await cluster.close();
  }
}

await main();
