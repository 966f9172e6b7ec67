// Event-loop delay while the raft core changes its election state or truncates its log: what every
// other timer, socket and heartbeat of the process waits for when a sync runs on the event loop.
//   1. elections: three voters in this process (on-disk log and quorum-state, real TCP, one event
//      loop for all three); the leader resigns, the next one is elected, repeatedly. The histogram
//      (`perf_hooks.monitorEventLoopDelay`) covers each resign-to-new-leader window.
//   2. truncation: the core's divergence path on the on-disk log. Batches are appended above the
//      high watermark and flushed, the log is truncated to the high watermark (what a follower does
//      on a diverging Fetch response), and the next batch is appended and flushed; the histogram
//      covers the whole round, and the synchronous time spent inside `truncateTo` is reported too.
//   3. new epochs: what the core does on the event loop when an epoch starts, on two on-disk logs.
//      The leader's log records the new epoch (`initializeLeaderEpoch`) and appends its first
//      batch; the follower's log appends that batch as fetched (a new epoch in a follower append);
//      both flush. The histogram covers the whole round; the synchronous time inside those three
//      calls is reported too.
//   4. full truncations: a follower installing a fetched snapshot ahead of its on-disk log
//      (`truncateToLatestSnapshot`, which drops every segment and starts the log at the snapshot),
//      then appending the next fetched batch and flushing. The snapshot is written and frozen before
//      the window; the histogram covers the install, the append and the flush, and the synchronous
//      time inside `truncateToLatestSnapshot` is reported too.
// Env: KRAFT_BENCH_ELECTIONS (default 20), KRAFT_BENCH_TRUNCATIONS (default 200),
// KRAFT_BENCH_NEW_EPOCHS (default 200), KRAFT_BENCH_FULL_TRUNCATIONS (default 100),
// KRAFT_BENCH_DIR (default os.tmpdir()); KRAFT_BENCH_CASES (comma-separated case names, default all).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { LogConfig, RaftLog } from '@kraft/log';
import { type MemoryRecords, MemoryRecordsBuilder, NodeFileSystem } from '@kraft/records';
import { countSetting } from './support/count-setting.js';
import { SnapshotCluster } from './support/snapshot-cluster.js';

const NANOSECONDS_PER_MILLISECOND = 1e6;
/** The histogram's sampling timer: 1 ms is its finest useful resolution. */
const RESOLUTION_MS = 1;
/** Bound on one election: a stuck cluster fails the bench instead of stalling it. */
const ELECTION_TIMEOUT_MS = 30_000;
/** Batches above the high watermark that each truncation removes (a short divergent tail). */
const DIVERGENT_BATCHES = 8;

const elections = countSetting('KRAFT_BENCH_ELECTIONS', 20);
const truncations = countSetting('KRAFT_BENCH_TRUNCATIONS', 200);
const newEpochs = countSetting('KRAFT_BENCH_NEW_EPOCHS', 200);
const fullTruncations = countSetting('KRAFT_BENCH_FULL_TRUNCATIONS', 100);
/** Batches each full-truncation round appends before the snapshot overtakes them (several segments' worth). */
const FULL_TRUNCATION_BATCHES = 24;
/** How far past the log end each fetched snapshot lies: the follower is behind the leader's log start. */
const SNAPSHOT_LEAD_OFFSETS = 1000;
const baseDirectory = mkdtempSync(join(process.env['KRAFT_BENCH_DIR'] ?? tmpdir(), 'kraft-loop-delay-'));

function row(label: string, value: string): void {
  process.stdout.write(`  ${label.padEnd(64)} ${value}\n`);
}

function milliseconds(nanoseconds: number): string {
  return (nanoseconds / NANOSECONDS_PER_MILLISECOND).toFixed(2).padStart(8);
}

function report(label: string, histogram: IntervalHistogram): void {
  row(
    `${label}: event-loop delay p50 / p99 / max (ms)`,
    `${milliseconds(histogram.percentile(50))} ${milliseconds(histogram.percentile(99))} ${milliseconds(histogram.max)}`,
  );
}

async function measureElections(): Promise<void> {
  const cluster = await SnapshotCluster.start({
    voterCount: 3,
    baseDirectory,
    quorum: { electionTimeoutMs: 200, fetchTimeoutMs: 400 },
  });
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let totalElectionMs = 0;
  try {
    let leader = await cluster.waitForLeader(ELECTION_TIMEOUT_MS);
    for (let round = 0; round < elections; round += 1) {
      const epoch = leader.client.leaderAndEpoch().epoch;
      const startMs = performance.now();
      histogram.enable();
      leader.client.resign(epoch);
      leader.driver.wake();
      await cluster.waitFor('a new leader', ELECTION_TIMEOUT_MS, () => {
        const next = cluster.leader();
        return next !== undefined && next.client.leaderAndEpoch().epoch > epoch;
      });
      histogram.disable();
      totalElectionMs += performance.now() - startMs;
      leader = await cluster.waitForLeader(ELECTION_TIMEOUT_MS);
    }
  } finally {
    await cluster.close();
  }
  process.stdout.write(`elections (3 voters, one process, ${elections} resign-to-leader rounds)\n`);
  report('elections', histogram);
  row('elections: mean resign-to-new-leader time (ms)', (totalElectionMs / elections).toFixed(1).padStart(8));
}

/** One record of `valueBytes`; `at` places the batch as a fetched one (its base offset and epoch). */
function batch(
  valueBytes: number,
  at?: { readonly baseOffset: number; readonly epoch: number },
): MemoryRecords {
  const builder = new MemoryRecordsBuilder({
    maxBatchSizeBytes: 1024 * 1024,
    ...(at === undefined ? {} : { baseOffset: at.baseOffset, partitionLeaderEpoch: at.epoch }),
  });
  builder.append({ timestamp: Date.now(), value: Buffer.alloc(valueBytes, 0x6b) });
  return builder.build();
}

/** The end of a measured round: the append flushed and committed, the loop let run, the window closed. */
async function commitAndCloseWindow(log: RaftLog, histogram: IntervalHistogram): Promise<void> {
  await log.flush();
  log.updateHighWatermark(log.endOffset());
  await yieldToLoop();
  histogram.disable();
}

async function measureTruncations(): Promise<void> {
  const log = RaftLog.open({
    dir: join(baseDirectory, 'truncation'),
    fileSystem: new NodeFileSystem(),
    config: new LogConfig({}),
  });
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const insideTruncateMs: number[] = [];
  try {
    log.initializeLeaderEpoch(1);
    log.appendAsLeader(batch(100), 1);
    await log.flush();
    log.updateHighWatermark(log.endOffset());
    for (let round = 0; round < truncations; round += 1) {
      // A divergent tail of a later epoch, durable as a follower's fetched data would be.
      for (let index = 0; index < DIVERGENT_BATCHES; index += 1) log.appendAsLeader(batch(1024), round + 2);
      await log.flush();
      await yieldToLoop();
      histogram.enable();
      const startMs = performance.now();
      log.truncateTo(log.highWatermark());
      insideTruncateMs.push(performance.now() - startMs);
      log.appendAsLeader(batch(100), round + 2);
      await commitAndCloseWindow(log, histogram);
    }
  } finally {
    log.close();
  }
  process.stdout.write(`log truncation (on-disk log, ${truncations} truncate + append + flush rounds)\n`);
  report('truncation', histogram);
  row('truncation: time inside truncateTo p50 / p99 (ms)', p50AndP99(insideTruncateMs));
}

/** `p50 p99` of `samplesMs` (sorted in place), two decimals each. */
function p50AndP99(samplesMs: number[]): string {
  samplesMs.sort((left, right) => left - right);
  const at = (fraction: number): string =>
    (samplesMs[Math.min(samplesMs.length - 1, Math.floor(fraction * samplesMs.length))] ?? 0)
      .toFixed(2)
      .padStart(8);
  return `${at(0.5)} ${at(0.99)}`;
}

async function measureNewEpochs(): Promise<void> {
  const open = (name: string): RaftLog =>
    RaftLog.open({
      dir: join(baseDirectory, name),
      fileSystem: new NodeFileSystem(),
      config: new LogConfig({}),
    });
  const leaderLog = open('new-epoch-leader');
  const followerLog = open('new-epoch-follower');
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const insideLeaderMs: number[] = [];
  const insideFollowerMs: number[] = [];
  try {
    for (let round = 0; round < newEpochs; round += 1) {
      const epoch = round + 1;
      await yieldToLoop();
      histogram.enable();
      const leaderStartMs = performance.now();
      leaderLog.initializeLeaderEpoch(epoch);
      const { firstOffset } = leaderLog.appendAsLeader(batch(100), epoch);
      insideLeaderMs.push(performance.now() - leaderStartMs);
      const fetched = leaderLog.read(firstOffset, 'uncommitted').records;
      const followerStartMs = performance.now();
      const appended = followerLog.appendAsFollower(fetched, epoch);
      insideFollowerMs.push(performance.now() - followerStartMs);
      // The leader's own batches: a rejection is a broken benchmark, not a number to report.
      if (appended.kind === 'rejected') throw appended.error;
      await Promise.all([leaderLog.flush(), followerLog.flush()]);
      await yieldToLoop();
      histogram.disable();
    }
  } finally {
    leaderLog.close();
    followerLog.close();
  }
  process.stdout.write(
    `new epochs (two on-disk logs, ${newEpochs} rounds: a new leader epoch and its first batch on each, then a flush)\n`,
  );
  report('new epochs', histogram);
  row('new epochs: leader initializeLeaderEpoch + append p50 / p99 (ms)', p50AndP99(insideLeaderMs));
  row('new epochs: follower append of a new epoch p50 / p99 (ms)', p50AndP99(insideFollowerMs));
}

async function measureFullTruncations(): Promise<void> {
  const log = RaftLog.open({
    dir: join(baseDirectory, 'full-truncation'),
    fileSystem: new NodeFileSystem(),
    // Small segments, so that every install drops several of them.
    config: new LogConfig({ internalSegmentBytes: 8 * 1024 }),
  });
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const insideInstallMs: number[] = [];
  try {
    for (let round = 0; round < fullTruncations; round += 1) {
      const epoch = round + 1;
      for (let index = 0; index < FULL_TRUNCATION_BATCHES; index += 1) log.appendAsLeader(batch(1024), epoch);
      await log.flush();
      // What FetchSnapshot leaves behind: a downloaded snapshot of a later epoch, past the log end.
      const snapshotId = { offset: log.endOffset() + SNAPSHOT_LEAD_OFFSETS, epoch: epoch + 1 };
      const writer = log.createNewSnapshotUnchecked(snapshotId);
      if (writer === undefined) throw new Error(`snapshot ${snapshotId.offset} exists already`);
      writer.append(batch(100));
      await yieldToLoop();
      histogram.enable();
      // The driver's freeze and log-start write (ADR 0039), then the core's install at its report.
      await log.freezeFetchedSnapshot(writer);
      const startMs = performance.now();
      log.onSnapshotFrozen(snapshotId);
      log.truncateToLatestSnapshot();
      insideInstallMs.push(performance.now() - startMs);
      const appended = log.appendAsFollower(
        batch(100, { baseOffset: snapshotId.offset, epoch: epoch + 1 }),
        epoch + 1,
      );
      // The batch right at the installed snapshot: a rejection is a broken benchmark, not a number to report.
      if (appended.kind === 'rejected') throw appended.error;
      await commitAndCloseWindow(log, histogram);
    }
  } finally {
    log.close();
  }
  process.stdout.write(
    `full truncations (on-disk log, ${fullTruncations} rounds: a fetched snapshot frozen and installed past the log end, an append, a flush)\n`,
  );
  report('full truncation', histogram);
  row('full truncation: time inside the install (poll side) p50 / p99 (ms)', p50AndP99(insideInstallMs));
}

/** `KRAFT_BENCH_CASES=full-truncation,...` runs only the named cases (default: all). */
const CASES: ReadonlyArray<readonly [string, () => Promise<void>]> = [
  ['elections', measureElections],
  ['truncation', measureTruncations],
  ['new-epochs', measureNewEpochs],
  ['full-truncation', measureFullTruncations],
];

try {
  const chosen = process.env['KRAFT_BENCH_CASES']?.split(',');
  for (const [name, measure] of CASES) if (chosen === undefined || chosen.includes(name)) await measure();
} finally {
  rmSync(baseDirectory, { recursive: true, force: true });
}
