import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseSnapshotFileName } from '@kraft/log';
import { type LocalNode, LocalQuorum, PARTITION_DIRECTORY } from './local-quorum.js';
import { logPrefixDigest, segmentBaseOffsets } from './log-prefix-digest.js';
import { metadataWorkloadArguments, SETTLE_TIMEOUT_MS, settled, track } from './metadata-scenario.js';
import { type LogOpen, NodeStart } from './node-start.js';
import type { PerfOptions } from './perf-command-line.js';
import { ProcessUsageSampler } from './process-usage.js';
import { formatMebibytes, formatNumber, type MarkdownSummary, verdictOf } from './results.js';
import { runFor } from './scenario-run.js';

/** raft's follower, once the last FetchSnapshot chunk is in and the snapshot replaced its log. */
const SNAPSHOT_INSTALLED_MESSAGE = 'installed snapshot from the leader';
/** A line already logged reaches the file within moments; this only bounds a node that never logs it. */
const LINE_TIMEOUT_MS = 10_000;
/** Stats lines this often: the grain of the latency intervals and of the caught-up time. */
const STATS_INTERVAL_MS = 250;
const LEADER_TIMEOUT_MS = 60_000;
/**
 * The leader's log start moves only when its retention runs: once a minute (Kafka's snapshot
 * cleaner interval, not a setting of the test server), the first a minute after it started.
 */
const LOG_START_TIMEOUT_MS = 180_000;
const CATCH_UP_TIMEOUT_MS = 120_000;
const USAGE_SAMPLE_INTERVAL_MS = 100;
/**
 * Small segments and retention, so that snapshots (every `--snapshot-bytes`) let the leader delete
 * whole segments and move its log start past the stopped follower's end within one cleaner run.
 */
const SEGMENT_BYTES = 128 * 1024;
const RETENTION_BYTES = 256 * 1024;

export type CatchUpScenarioOptions = Pick<
  PerfOptions,
  'nodeCount' | 'durationMs' | 'warmupMs' | 'throughputRecordsPerSecond' | 'snapshotThresholdBytes' | 'seed'
> & { readonly baseDirectory?: string; readonly keepDirectory?: boolean };

/** The leader's stats line of one interval (its own appends, append to commit). */
interface LatencyInterval {
  readonly atMs: number;
  readonly p99Ms: number;
  readonly records: number;
}

/** Per-interval p99s of the leader over a window: the stats lines carry no mergeable histogram. */
export interface IntervalLatency {
  readonly intervals: number;
  readonly medianP99Ms: number;
  readonly maxP99Ms: number;
}

export interface CatchUp {
  readonly nodeId: number;
  readonly logEndOffsetAtStop: number;
  /** The leader's log start when the follower was started again (above `logEndOffsetAtStop`). */
  readonly leaderLogStartOffset: number;
  readonly downMs: number;
  readonly targetHighWatermark: number;
  readonly open: LogOpen;
  /** From the spawn to raft's `installed snapshot from the leader` (every FetchSnapshot chunk in, the log replaced). */
  readonly launchToSnapshotInstalledMs: number;
  readonly launchToCaughtUpMs: number;
  readonly snapshot: { readonly offset: number; readonly epoch: number; readonly sizeInBytes: number };
  /** What the follower's read calls returned from the spawn to caught up: mostly the leader's bytes. */
  readonly readChars: number;
  readonly peakRssBytes: number;
  /** The follower's first segment after the catch-up, offline: above 0 once the snapshot replaced its log. */
  readonly logStartOffsetAfter: number;
}

export interface CatchUpScenarioResult {
  readonly scenario: 'catch-up';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: CatchUpScenarioOptions;
  readonly leaderId: number;
  readonly catchUp: CatchUp | undefined;
  /** The leader's p99s over `durationMs` with every node up, before the follower stops. */
  readonly latencyBefore: IntervalLatency;
  /** ... over `durationMs` just before the restart (the follower down: the same load, less the catch-up). */
  readonly latencyBeforeRestart: IntervalLatency;
  /** ... from the follower's log opened (it fetches from then on) to one interval after caught up. */
  readonly latencyDuring: IntervalLatency;
  /** Every node's image digest after the appends stopped and the images settled. */
  readonly digests: readonly { readonly nodeId: number; readonly offset: number; readonly digest: string }[];
}

const LATENCY_PATTERN = /Latency \(ms\): [\d.]+ p75 (?<p99>[\d.]+) p99 .*Records\/second: (?<rate>[\d.]+)/;

function recordLatency(node: LocalNode, intervals: LatencyInterval[]): void {
  node.onLine((line) => {
    const groups = LATENCY_PATTERN.exec(line)?.groups;
    if (groups === undefined || !line.includes('Role: Leader')) return;
    intervals.push({
      atMs: performance.now(),
      p99Ms: Number(groups['p99']),
      records: Math.round((Number(groups['rate']) * STATS_INTERVAL_MS) / 1000),
    });
  });
}

/** The intervals that ended in `(fromMs, toMs]` and measured something. */
export function intervalLatency(
  intervals: readonly LatencyInterval[],
  fromMs: number,
  toMs: number,
): IntervalLatency {
  const p99s = intervals
    .filter((interval) => interval.atMs > fromMs && interval.atMs <= toMs && interval.records > 0)
    .map((interval) => interval.p99Ms)
    .sort((left, right) => left - right);
  return {
    intervals: p99s.length,
    medianP99Ms: p99s[Math.floor(p99s.length / 2)] ?? 0,
    maxP99Ms: p99s.at(-1) ?? 0,
  };
}

/** The snapshot files of a node's partition, by offset. */
function snapshotFiles(logDirectory: string) {
  const partition = join(logDirectory, PARTITION_DIRECTORY);
  return readdirSync(partition).flatMap((name) => {
    const parsed = parseSnapshotFileName(name);
    if (parsed === undefined || parsed.partial || parsed.deleted) return [];
    return [{ ...parsed.snapshotId, sizeInBytes: statSync(join(partition, name)).size }];
  });
}

async function stopAndCatchUp(
  quorum: LocalQuorum,
  leader: LocalNode,
  follower: LocalNode,
  serverArguments: readonly string[],
) {
  quorum.kill(follower, 'SIGTERM');
  await follower.exited();
  const stoppedMs = performance.now();
  const logEndOffsetAtStop = logPrefixDigest(follower.logDirectory, Number.MAX_SAFE_INTEGER).endOffset;
  let leaderLogStartOffset = 0;
  await quorum.waitFor(
    `the leader's log start to pass offset ${logEndOffsetAtStop}`,
    LOG_START_TIMEOUT_MS,
    () => {
      leaderLogStartOffset = segmentBaseOffsets(leader.logDirectory)[0] ?? 0;
      return leaderLogStartOffset > logEndOffsetAtStop;
    },
  );
  const targetHighWatermark = leader.status?.highWatermark ?? leader.maxHighWatermark;
  const start = NodeStart.launch(follower, serverArguments);
  const downMs = performance.now() - stoppedMs;
  const sampler = new ProcessUsageSampler(() => new Map([[follower.nodeId, follower.pid]]));
  sampler.start(USAGE_SAMPLE_INTERVAL_MS);
  try {
    await quorum.waitFor(
      `node ${follower.nodeId} to catch up`,
      CATCH_UP_TIMEOUT_MS,
      () => (follower.status?.highWatermark ?? -1) >= targetHighWatermark,
    );
    const launchToCaughtUpMs = start.sinceLaunchMs();
    sampler.sample();
    const open = await start.logOpened(quorum);
    const installed = await start.waitForLine(
      quorum,
      SNAPSHOT_INSTALLED_MESSAGE,
      LINE_TIMEOUT_MS,
      (line) => Number(line['offset']) > logEndOffsetAtStop,
    );
    const usage = sampler.stop().get(follower.nodeId);
    const offset = Number(installed['offset']);
    const snapshot = snapshotFiles(follower.logDirectory).find((file) => file.offset === offset);
    return {
      caughtUpMs: performance.now(),
      launchedMs: start.launchedMs,
      catchUp: {
        nodeId: follower.nodeId,
        logEndOffsetAtStop,
        leaderLogStartOffset,
        downMs,
        targetHighWatermark,
        open,
        launchToSnapshotInstalledMs: start.wallSinceLaunchMs(installed.time),
        launchToCaughtUpMs,
        snapshot: snapshot ?? { offset, epoch: -1, sizeInBytes: 0 },
        readChars: usage?.readChars ?? 0,
        peakRssBytes: usage?.peakRssBytes ?? 0,
        logStartOffsetAfter: 0,
      } satisfies CatchUp,
    };
  } finally {
    sampler.stop();
  }
}

/**
 * A follower of a 3-node metadata quorum (loader and snapshot generator on every node) stopped
 * with SIGTERM until the leader's retention moved its log start past the follower's end, then
 * started again: it must fetch the leader's snapshot (FetchSnapshot) and the log after it. Times
 * from its log lines and stats lines, its reads and peak RSS from /proc, the leader's per-interval
 * commit-latency p99 before the stop and during the catch-up; then every image digest must agree.
 */
export async function runCatchUpScenario(options: CatchUpScenarioOptions): Promise<CatchUpScenarioResult> {
  const serverArguments = metadataWorkloadArguments(options.throughputRecordsPerSecond, options.seed);
  const quorumOptions = {
    ...options,
    serverArguments,
    properties: {
      'metadata.log.max.record.bytes.between.snapshots': String(options.snapshotThresholdBytes),
      'internal.metadata.log.segment.bytes': String(SEGMENT_BYTES),
      'metadata.max.retention.bytes': String(RETENTION_BYTES),
    },
    statsIntervalMs: STATS_INTERVAL_MS,
  };
  if (options.nodeCount < 3) {
    const none = intervalLatency([], 0, 0);
    return {
      scenario: 'catch-up',
      passed: false,
      failures: ['catch-up needs at least 3 nodes'],
      options,
      leaderId: 0,
      catchUp: undefined,
      latencyBefore: none,
      latencyBeforeRestart: none,
      latencyDuring: none,
      digests: [],
    };
  }
  return LocalQuorum.run(quorumOptions, async (quorum) => {
    const failures: string[] = [];
    const intervals: LatencyInterval[] = [];
    const tracked = quorum.nodes.map(track);
    for (const node of quorum.nodes) recordLatency(node, intervals);
    const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
    const follower = quorum.nodes.find((node) => node !== leader) as LocalNode;
    await runFor(quorum, options.warmupMs);
    const beforeFromMs = performance.now();
    await runFor(quorum, options.durationMs);
    const latencyBefore = intervalLatency(intervals, beforeFromMs, performance.now());
    const run = await stopAndCatchUp(quorum, leader, follower, serverArguments);
    // One more interval: the line printed just after caught up covers its last moments.
    await runFor(quorum, STATS_INTERVAL_MS * 2);
    // From its log opened (it fetches at once; before, it was still starting): the leader's extra load.
    const fetchingFromMs = run.launchedMs + run.catchUp.open.launchToLogOpenedMs;
    const latencyDuring = intervalLatency(intervals, fetchingFromMs, run.caughtUpMs + STATS_INTERVAL_MS);
    const latencyBeforeRestart = intervalLatency(
      intervals,
      run.launchedMs - options.durationMs,
      run.launchedMs,
    );
    if ((quorum.leader() ?? leader) !== leader) failures.push('the leader changed during the run');
    quorum.signalAll('SIGUSR2');
    await quorum.waitFor('the images to settle', SETTLE_TIMEOUT_MS, () => settled(tracked));
    await quorum.stopAll();
    const catchUp = {
      ...run.catchUp,
      logStartOffsetAfter: segmentBaseOffsets(follower.logDirectory)[0] ?? 0,
    };
    const digests = tracked.map(({ node, reports }) => {
      const report = reports.at(-1);
      if (report === undefined) failures.push(`node ${node.nodeId} printed no image digest`);
      return { nodeId: node.nodeId, offset: report?.offset ?? -1, digest: report?.digest ?? '' };
    });
    if (new Set(digests.map((entry) => entry.digest)).size !== 1)
      failures.push("the nodes' image digests differ after the catch-up");
    if (catchUp.snapshot.sizeInBytes === 0)
      failures.push(`node ${follower.nodeId} holds no file of snapshot ${catchUp.snapshot.offset}`);
    if (catchUp.logStartOffsetAfter <= catchUp.logEndOffsetAtStop)
      failures.push(
        `node ${follower.nodeId}'s log starts at ${catchUp.logStartOffsetAfter}, not past its end at the stop`,
      );
    return {
      scenario: 'catch-up' as const,
      passed: failures.length === 0,
      failures,
      options,
      leaderId: leader.nodeId,
      catchUp,
      latencyBefore,
      latencyBeforeRestart,
      latencyDuring,
      digests,
    };
  });
}

const seconds = (ms: number) => `${formatNumber(ms / 1000, 2)} s`;
const latencyText = (latency: IntervalLatency) =>
  `median ${formatNumber(latency.medianP99Ms, 1)} ms, max ${formatNumber(latency.maxP99Ms, 1)} ms over ${latency.intervals} intervals`;

export function catchUpSummary(result: CatchUpScenarioResult): MarkdownSummary {
  const { options, catchUp } = result;
  const rows: (readonly [string, string])[] = [];
  if (catchUp !== undefined) {
    rows.push(
      [
        `follower node ${catchUp.nodeId}: down`,
        `${seconds(catchUp.downMs)}; its log ended at ${formatNumber(catchUp.logEndOffsetAtStop)}, the leader's then started at ${formatNumber(catchUp.leaderLogStartOffset)}`,
      ],
      [
        'log opened, snapshot fetched and installed, caught up (from the spawn)',
        `${seconds(catchUp.open.launchToLogOpenedMs)}, ${seconds(catchUp.launchToSnapshotInstalledMs)}, ${seconds(catchUp.launchToCaughtUpMs)} (high watermark ${formatNumber(catchUp.targetHighWatermark)})`,
      ],
      [
        'snapshot fetched, bytes read, peak RSS',
        `${catchUp.snapshot.offset}-${catchUp.snapshot.epoch}, ${formatMebibytes(catchUp.snapshot.sizeInBytes)}; read calls ${formatMebibytes(catchUp.readChars)}; ${formatMebibytes(catchUp.peakRssBytes)}`,
      ],
      ['follower log start after', formatNumber(catchUp.logStartOffsetAfter)],
    );
  }
  rows.push(
    [`leader (node ${result.leaderId}) commit p99, every node up`, latencyText(result.latencyBefore)],
    ['leader commit p99 just before the restart (follower down)', latencyText(result.latencyBeforeRestart)],
    ['leader commit p99 during the catch-up', latencyText(result.latencyDuring)],
    ['image digests agree', new Set(result.digests.map((entry) => entry.digest)).size === 1 ? 'yes' : 'NO'],
  );
  return {
    title: `catch-up: ${options.nodeCount} nodes, metadata workload ${formatNumber(options.throughputRecordsPerSecond)} records/s, snapshots every ${formatNumber(options.snapshotThresholdBytes)} B`,
    verdict: verdictOf(
      result,
      `PASSED: follower caught up ${catchUp === undefined ? '-' : seconds(catchUp.launchToCaughtUpMs)} after its spawn through snapshot ${catchUp?.snapshot.offset ?? '-'}; leader p99 ${formatNumber(result.latencyBeforeRestart.medianP99Ms, 1)} ms before, up to ${formatNumber(result.latencyDuring.maxP99Ms, 1)} ms during`,
    ),
    rows,
    notes: [
      `segments of ${formatNumber(SEGMENT_BYTES / 1024)} KiB, retention ${formatNumber(RETENTION_BYTES / 1024)} KiB: the leader's log start moves when its retention runs (once a minute, the first a minute after its start), so the follower is down about that long`,
      `snapshot installed: raft's 'installed snapshot from the leader' line for a snapshot above the follower's old end (the last FetchSnapshot chunk in, the log replaced); caught up: its stats line (every ${STATS_INTERVAL_MS} ms) with the leader's high watermark at the restart`,
      "leader latency: the p99 of each of its stats-line intervals (append to commit of its own appends); the lines carry no histogram, so these are per-interval p99s, not one window's",
      'read calls: rchar of /proc/<pid>/io, sockets (the snapshot and the log after it) and its own small log',
    ],
  };
}
