// A wiped follower catches up from a multi-chunk snapshot over real TCP (TARGETS P8, small shape):
// three voters in one process on the on-disk log, the leader's application snapshots through
// `createSnapshot`, log retention (`maybeClean` on the client's clean interval) moves the log start
// past the snapshot, and a follower restarted with an empty directory must download the snapshot
// in several FetchSnapshot chunks, load it, and fetch the log tail above it.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClusterNode,
  committedLogDigest,
  SnapshotCluster,
  type WrittenSnapshot,
} from './support/snapshot-cluster.js';

const KIBIBYTE = 1024;
const MEBIBYTE = 1024 * KIBIBYTE;
/** 24 MiB in 4 MiB FetchSnapshot chunks: seven round trips, the last one partial. */
const SNAPSHOT_VALUE_BYTES = 24 * MEBIBYTE;
const SNAPSHOT_CHUNK_BYTES = 4 * MEBIBYTE;
const TAIL_BYTES = 8 * MEBIBYTE;
/** Generous: the machine is shared with a background simulation. */
const STEP_TIMEOUT_MS = 30_000;

const clusters: SnapshotCluster[] = [];

afterEach(async () => {
  for (const cluster of clusters.splice(0)) await cluster.close();
}, 30_000);

interface ClusterWithSnapshot {
  readonly cluster: SnapshotCluster;
  readonly leader: ClusterNode;
  readonly snapshot: WrittenSnapshot;
  /** The offset after the last committed record of the tail. */
  readonly endOffset: number;
  /** A follower, stopped and wiped: it restarts with an empty directory. */
  readonly followerId: number;
}

/**
 * Three voters; the leader commits, snapshots (a small snapshot, then the large one: retention only
 * ever deletes up to the next snapshot), commits the tail, and retention moves its log start to the
 * large snapshot. Then one follower is stopped and its directory wiped.
 */
async function clusterWithSnapshot(): Promise<ClusterWithSnapshot> {
  const cluster = await SnapshotCluster.start({
    voterCount: 3,
    digestValues: true,
    quorum: {
      // Loose timeouts: the snapshot is written and fsynced on the event loop all nodes share.
      electionTimeoutMs: 1_000,
      fetchTimeoutMs: 4_000,
      requestTimeoutMs: 5_000,
      appendLingerMs: 5,
      fetchSnapshotMaxBytes: SNAPSHOT_CHUNK_BYTES,
      // Retention runs often so the log start moves soon after the second snapshot.
      logCleanIntervalMs: 100,
    },
    // Small segments so retention deletes whole segments; 1 MiB of retention is less than the
    // snapshots alone, so every pass drops all snapshots but the latest.
    log: { internalSegmentBytes: 2 * MEBIBYTE, retentionMaxBytes: MEBIBYTE },
  });
  clusters.push(cluster);
  const leader = await cluster.waitForLeader(STEP_TIMEOUT_MS);
  await cluster.commitWorkload(2 * MEBIBYTE, KIBIBYTE, 64, STEP_TIMEOUT_MS);
  const first = await cluster.writeLeaderSnapshot(64 * KIBIBYTE, KIBIBYTE, 64);
  await cluster.commitWorkload(2 * MEBIBYTE, KIBIBYTE, 64, STEP_TIMEOUT_MS);
  const snapshot = await cluster.writeLeaderSnapshot(SNAPSHOT_VALUE_BYTES, 4 * KIBIBYTE, 256);
  expect(snapshot.snapshotId.offset).toBeGreaterThan(first.snapshotId.offset);
  expect(snapshot.sizeInBytes).toBeGreaterThan(5 * SNAPSHOT_CHUNK_BYTES);
  const endOffset = await cluster.commitWorkload(TAIL_BYTES, KIBIBYTE, 64, STEP_TIMEOUT_MS);
  await cluster.waitFor(
    'retention to move the leader log start to the snapshot',
    STEP_TIMEOUT_MS,
    () => leader.log.startOffset() === snapshot.snapshotId.offset,
  );
  expect(leader.log.earliestSnapshotId()).toEqual(snapshot.snapshotId);
  const followerId = cluster.runningNodes().find((node) => node !== leader)?.nodeId;
  if (followerId === undefined) throw new Error('no follower');
  await cluster.stopNode(followerId);
  cluster.wipeNode(followerId);
  return { cluster, leader, snapshot, endOffset, followerId };
}

/** Waits for `follower` to reach the leader's high watermark, then checks it against the leader byte for byte. */
async function expectCaughtUp(setup: ClusterWithSnapshot, follower: ClusterNode): Promise<void> {
  const { cluster, leader, snapshot, endOffset } = setup;
  await cluster.waitFor('the restarted follower to catch up', STEP_TIMEOUT_MS, () => {
    const highWatermark = leader.log.highWatermark();
    return (
      follower.listener.lastCommittedOffset >= highWatermark - 1 &&
      (follower.client.highWatermark() ?? 0) >= highWatermark
    );
  });

  // The application loaded exactly the snapshot the leader's application wrote.
  expect(follower.listener.snapshotLoads).toHaveLength(1);
  const load = follower.listener.snapshotLoads[0];
  expect(load?.snapshotId).toEqual(snapshot.snapshotId);
  expect(load?.recordCount).toBe(snapshot.recordCount);
  expect(load?.valueBytes).toBe(snapshot.valueBytes);
  expect(load?.digest).toBe(snapshot.digest);
  // The log above it came over Fetch, not from a replay of the whole log.
  expect(follower.log.startOffset()).toBe(snapshot.snapshotId.offset);
  expect(follower.log.highWatermark()).toBeGreaterThanOrEqual(endOffset);
  expect(follower.listener.committedValueBytes).toBeGreaterThanOrEqual(TAIL_BYTES);
  expect(follower.listener.committedValueBytes).toBeLessThan(TAIL_BYTES + 64 * KIBIBYTE);

  // Byte-identical: the snapshot file on disk and the committed log above the snapshot.
  const leaderFile = cluster.readSnapshotFile(leader.nodeId, snapshot.snapshotId);
  const followerFile = cluster.readSnapshotFile(follower.nodeId, snapshot.snapshotId);
  expect(followerFile.length).toBe(snapshot.sizeInBytes);
  expect(followerFile.equals(leaderFile)).toBe(true);
  expect(cluster.snapshotFileNames(follower.nodeId)).toEqual([snapshotFileName(snapshot)]);
  const leaderLog = committedLogDigest(leader.log, snapshot.snapshotId.offset);
  const followerLog = committedLogDigest(follower.log, snapshot.snapshotId.offset);
  expect(followerLog.bytes).toBeGreaterThan(TAIL_BYTES);
  expect(followerLog).toEqual(leaderLog);
}

function snapshotFileName(snapshot: WrittenSnapshot): string {
  const { offset, epoch } = snapshot.snapshotId;
  return `${String(offset).padStart(20, '0')}-${String(epoch).padStart(10, '0')}.checkpoint`;
}

describe('snapshot catch-up over TCP', () => {
  it('a wiped follower fetches the snapshot in chunks, loads it, and fetches the tail above it', async () => {
    const setup = await clusterWithSnapshot();
    const follower = await setup.cluster.restartNode(setup.followerId);
    await expectCaughtUp(setup, follower);
  });

  it('a follower stopped in the middle of the download closes it, leaves no partial file, and fetches it again', async () => {
    const setup = await clusterWithSnapshot();
    const { cluster, followerId } = setup;
    const interrupted = await cluster.restartNode(followerId);
    const isPartial = (name: string): boolean => name.endsWith('.checkpoint.part');
    await cluster.waitFor('the snapshot download to start', STEP_TIMEOUT_MS, () =>
      cluster.snapshotFileNames(followerId).some(isPartial),
    );
    await cluster.stopNode(followerId);
    // A graceful stop closes the download (its `.part` file is deleted, its descriptor released):
    // nothing partial, nothing frozen, nothing loaded. A crash would leave the `.part` file, which
    // the log deletes when it opens (packages/log recovery tests).
    const names = cluster.snapshotFileNames(followerId);
    expect(names.filter(isPartial)).toEqual([]);
    expect(names.filter((name) => name.endsWith('.checkpoint'))).toEqual([]);
    expect(interrupted.listener.snapshotLoads).toEqual([]);

    const follower = await cluster.restartNode(followerId);
    await expectCaughtUp(setup, follower);
  });
});
