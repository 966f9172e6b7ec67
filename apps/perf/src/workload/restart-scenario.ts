import type { FailoverSignal } from './failover-scenario.js';
import { type LocalNode, LocalQuorum, raftWorkloadArguments } from './local-quorum.js';
import { logPrefixDigest, segmentBytes } from './log-prefix-digest.js';
import { type LogOpen, NodeStart } from './node-start.js';
import type { PerfOptions } from './perf-command-line.js';
import { ProcessUsageSampler } from './process-usage.js';
import { formatMebibytes, formatNumber, type MarkdownSummary, verdictOf } from './results.js';
import { sleep } from './scenario-run.js';

/** Stats lines this often: the resolution of the leader, commit and caught-up times. */
const STATS_INTERVAL_MS = 100;
const LEADER_TIMEOUT_MS = 60_000;
/**
 * The build: 16 KiB records offered far above what the quorum commits, so the generator's 4 MiB
 * outstanding bound paces it and the log grows as fast as this machine commits (docs/performance.md P3).
 */
const BUILD_RECORD_SIZE_BYTES = 16 * 1024;
const BUILD_THROUGHPUT_RECORDS_PER_SECOND = 100_000;
/** The slowest build rate allowed for before giving up (a loaded machine commits far more). */
const MINIMUM_BUILD_BYTES_PER_SECOND = 1024 * 1024;
/** The follower stays down this long while the leader goes on committing: the gap it fetches back. */
const FOLLOWER_DOWN_MS = 2_000;
/** Commits flow this long after the quorum restart before the follower is stopped. */
const STEADY_MS = 2_000;
const USAGE_SAMPLE_INTERVAL_MS = 100;
const MEBIBYTE = 1024 * 1024;

export type RestartScenarioOptions = Pick<
  PerfOptions,
  'logSizeBytes' | 'throughputRecordsPerSecond' | 'recordSizeBytes' | 'keepDirectory'
> & {
  readonly nodeCount: number;
  /** TERM: clean stops (the log opens from its clean-shutdown marker); KILL: kill -9 (a recovery scan). */
  readonly signal: FailoverSignal;
  readonly baseDirectory?: string;
};

/** The whole quorum stopped and started again on its logs. */
export interface QuorumRestart {
  readonly committedBefore: number;
  readonly epochBefore: number;
  readonly opens: readonly LogOpen[];
  /** From the spawn of the nodes to the first stats line of a leader in a later epoch. */
  readonly launchToLeaderMs: number;
  /** ... to the first line in which its high watermark passed the one before the stop. */
  readonly launchToFirstCommitMs: number;
  /**
   * ... to the first line in which it passed every node's log end at the open plus its epoch's
   * LeaderChange: a record appended after the restart committed. The test server's generator
   * starts once the leader's listener has read the committed log (all of it, from offset 0).
   */
  readonly launchToWorkloadCommitMs: number;
  readonly leaderId: number;
  readonly epoch: number;
}

/** One follower stopped while the others commit, then started again. */
export interface FollowerRestart {
  readonly nodeId: number;
  /** Its segment files when it stopped: what its open validates after kill -9. */
  readonly logBytesAtStop: number;
  /** The leader's high watermark at the spawn: caught up means its own high watermark reached it. */
  readonly targetHighWatermark: number;
  readonly open: LogOpen;
  readonly launchToLeaderKnownMs: number;
  readonly launchToCaughtUpMs: number;
  /** /proc/<pid>/io from the spawn to caught up: storage reads (0 from a warm page cache) and read calls (sockets too). */
  readonly readBytes: number;
  readonly readChars: number;
  readonly peakRssBytes: number;
}

export interface RestartScenarioResult {
  readonly scenario: 'restart';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: RestartScenarioOptions;
  readonly resolutionMs: number;
  readonly build: { readonly durationMs: number; readonly logBytes: number; readonly highWatermark: number };
  readonly quorumRestart: QuorumRestart | undefined;
  readonly followerRestart: FollowerRestart | undefined;
  /** The restarted follower's log against the leader's, both hashed up to the same committed offset. */
  readonly prefixCheck:
    | { readonly throughOffset: number; readonly bytes: number; readonly matches: boolean }
    | undefined;
}

function highestWatermark(quorum: LocalQuorum): number {
  return Math.max(0, ...quorum.nodes.map((node) => node.maxHighWatermark));
}

/** Stops `nodes` with `signal` and waits until each has exited. */
async function stopNodes(quorum: LocalQuorum, nodes: readonly LocalNode[], signal: FailoverSignal) {
  for (const node of nodes) quorum.kill(node, `SIG${signal}`);
  await Promise.all(nodes.map((node) => node.exited()));
}

/** Appends until the leader's segments hold `logSizeBytes`; timed from the first leader on (start-up is not the build). */
async function buildLog(quorum: LocalQuorum, logSizeBytes: number) {
  const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
  const startedMs = performance.now();
  const timeoutMs = LEADER_TIMEOUT_MS + (logSizeBytes / MINIMUM_BUILD_BYTES_PER_SECOND) * 1000;
  let checkedMs = 0;
  await quorum.waitFor(`a ${formatMebibytes(logSizeBytes)} log`, timeoutMs, () => {
    // Listing the dir every poll is cheap, but not free: a few times a second is enough.
    if (performance.now() - checkedMs < 250) return false;
    checkedMs = performance.now();
    return segmentBytes(leader.logDirectory) >= logSizeBytes;
  });
  return {
    durationMs: performance.now() - startedMs,
    logBytes: segmentBytes(leader.logDirectory),
    highWatermark: leader.maxHighWatermark,
  };
}

/** Bounds a wait that reads every node's log once (the listener's replay), at the slowest build rate. */
function replayTimeoutMs(opens: readonly LogOpen[]): number {
  const largestLogEnd = Math.max(...opens.map((open) => open.logEndOffset));
  return (
    LEADER_TIMEOUT_MS + ((largestLogEnd * BUILD_RECORD_SIZE_BYTES) / MINIMUM_BUILD_BYTES_PER_SECOND) * 1000
  );
}

async function restartQuorum(
  quorum: LocalQuorum,
  signal: FailoverSignal,
  serverArguments: readonly string[],
): Promise<QuorumRestart> {
  const epochBefore = (await quorum.waitForLeader(LEADER_TIMEOUT_MS)).status?.epoch ?? 0;
  await stopNodes(quorum, quorum.nodes, signal);
  const committedBefore = highestWatermark(quorum);
  const starts = quorum.nodes.map((node) => NodeStart.launch(node, serverArguments));
  const launchedMs = performance.now();
  let elected: { node: LocalNode; atMs: number; epoch: number } | undefined;
  let firstCommitMs: number | undefined;
  await quorum.waitFor('the restarted quorum to commit', LEADER_TIMEOUT_MS, () => {
    for (const node of quorum.nodes) {
      const status = node.status;
      if (status === undefined || status.role.toLowerCase() !== 'leader' || status.epoch <= epochBefore)
        continue;
      elected ??= { node, atMs: performance.now(), epoch: status.epoch };
      if (node === elected.node && (status.highWatermark ?? 0) > committedBefore)
        firstCommitMs ??= performance.now();
    }
    return firstCommitMs !== undefined;
  });
  const opens = await Promise.all(starts.map((start) => start.logOpened(quorum)));
  const winner = elected as NonNullable<typeof elected>;
  const reachableWithoutAppends = Math.max(...opens.map((open) => open.logEndOffset)) + 1;
  await quorum.waitFor('the restarted leader to commit new records', replayTimeoutMs(opens), () => {
    const status = winner.node.status;
    return status?.epoch === winner.epoch && (status.highWatermark ?? 0) > reachableWithoutAppends;
  });
  const launchToWorkloadCommitMs = performance.now() - launchedMs;
  return {
    committedBefore,
    epochBefore,
    opens,
    launchToLeaderMs: winner.atMs - launchedMs,
    launchToFirstCommitMs: (firstCommitMs as number) - launchedMs,
    launchToWorkloadCommitMs,
    leaderId: winner.node.nodeId,
    epoch: winner.epoch,
  };
}

async function restartFollower(
  quorum: LocalQuorum,
  signal: FailoverSignal,
  serverArguments: readonly string[],
): Promise<FollowerRestart> {
  const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
  const follower = quorum.nodes.find((node) => node !== leader) as LocalNode;
  await stopNodes(quorum, [follower], signal);
  const logBytesAtStop = segmentBytes(follower.logDirectory);
  await sleep(FOLLOWER_DOWN_MS);
  const targetHighWatermark = leader.status?.highWatermark ?? leader.maxHighWatermark;
  const start = NodeStart.launch(follower, serverArguments);
  const sampler = new ProcessUsageSampler(() => new Map([[follower.nodeId, follower.pid]]));
  sampler.start(USAGE_SAMPLE_INTERVAL_MS);
  try {
    let leaderKnownMs: number | undefined;
    const catchUpTimeoutMs = LEADER_TIMEOUT_MS + (logBytesAtStop / MINIMUM_BUILD_BYTES_PER_SECOND) * 1000;
    await quorum.waitFor(`node ${follower.nodeId} to catch up`, catchUpTimeoutMs, () => {
      const status = follower.status;
      if (status?.leaderId !== undefined) leaderKnownMs ??= start.sinceLaunchMs();
      return (status?.highWatermark ?? -1) >= targetHighWatermark;
    });
    const launchToCaughtUpMs = start.sinceLaunchMs();
    sampler.sample();
    const open = await start.logOpened(quorum);
    const usage = sampler.stop().get(follower.nodeId);
    return {
      nodeId: follower.nodeId,
      logBytesAtStop,
      targetHighWatermark,
      open,
      launchToLeaderKnownMs: leaderKnownMs ?? launchToCaughtUpMs,
      launchToCaughtUpMs,
      readBytes: usage?.readBytes ?? 0,
      readChars: usage?.readChars ?? 0,
      peakRssBytes: usage?.peakRssBytes ?? 0,
    };
  } finally {
    sampler.stop();
  }
}

/**
 * Builds a large log on a 3-node quorum, then restarts the whole quorum on it (time to a leader
 * and its first commit) and one follower (time to its log opened, to the leader's high watermark,
 * its reads and peak RSS), both with `signal`; then checks, offline, that the follower's log
 * holds exactly the leader's committed batches.
 */
export async function runRestartScenario(options: RestartScenarioOptions): Promise<RestartScenarioResult> {
  const measuredArguments = raftWorkloadArguments(
    options.throughputRecordsPerSecond,
    options.recordSizeBytes,
  );
  const quorumOptions = {
    ...options,
    serverArguments: raftWorkloadArguments(BUILD_THROUGHPUT_RECORDS_PER_SECOND, BUILD_RECORD_SIZE_BYTES),
    statsIntervalMs: STATS_INTERVAL_MS,
  };
  if (options.nodeCount < 3) {
    return restartResult(
      options,
      ['restart needs at least 3 nodes'],
      undefined,
      undefined,
      undefined,
      undefined,
    );
  }
  return LocalQuorum.run(quorumOptions, async (quorum) => {
    const failures: string[] = [];
    const build = await buildLog(quorum, options.logSizeBytes);
    const quorumRestart = await restartQuorum(quorum, options.signal, measuredArguments);
    await sleep(STEADY_MS);
    const followerRestart = await restartFollower(quorum, options.signal, measuredArguments);
    const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
    await quorum.stopAll();
    const follower = quorum.node(followerRestart.nodeId);
    const throughOffset = Math.min(leader.maxHighWatermark, follower.maxHighWatermark);
    const leaderPrefix = logPrefixDigest(leader.logDirectory, throughOffset);
    const followerPrefix = logPrefixDigest(follower.logDirectory, throughOffset);
    const prefixCheck = {
      throughOffset: followerPrefix.endOffset,
      bytes: followerPrefix.bytes,
      matches:
        leaderPrefix.digest === followerPrefix.digest && leaderPrefix.endOffset === followerPrefix.endOffset,
    };
    if (!prefixCheck.matches)
      failures.push(
        `node ${follower.nodeId}'s log differs from the leader's committed log below offset ${throughOffset}`,
      );
    if (followerPrefix.endOffset < followerRestart.targetHighWatermark)
      failures.push(`node ${follower.nodeId}'s log ends before the high watermark it caught up to`);
    const expectClean = options.signal === 'TERM';
    for (const open of [...quorumRestart.opens, followerRestart.open]) {
      if (open.clean !== expectClean)
        failures.push(
          `node ${open.nodeId} opened its log ${open.clean ? 'clean' : 'unclean'} after SIG${options.signal}`,
        );
    }
    return restartResult(options, failures, build, quorumRestart, followerRestart, prefixCheck);
  });
}

function restartResult(
  options: RestartScenarioOptions,
  failures: readonly string[],
  build: RestartScenarioResult['build'] | undefined,
  quorumRestart: QuorumRestart | undefined,
  followerRestart: FollowerRestart | undefined,
  prefixCheck: RestartScenarioResult['prefixCheck'],
): RestartScenarioResult {
  return {
    scenario: 'restart',
    passed: failures.length === 0,
    failures,
    options,
    resolutionMs: STATS_INTERVAL_MS,
    build: build ?? { durationMs: 0, logBytes: 0, highWatermark: 0 },
    quorumRestart,
    followerRestart,
    prefixCheck,
  };
}

const seconds = (ms: number) => `${formatNumber(ms / 1000, 2)} s`;

function openRow(open: LogOpen): string {
  return `log opened ${seconds(open.launchToLogOpenedMs)} after the spawn (the open itself ${formatNumber(open.logOpenMs)} ms, ${open.clean ? 'clean' : 'recovery scan'}, ${open.segments} segments, offsets ${open.logStartOffset}-${open.logEndOffset})`;
}

export function restartSummary(result: RestartScenarioResult): MarkdownSummary {
  const { options, build, quorumRestart, followerRestart, prefixCheck } = result;
  const rows: (readonly [string, string])[] = [
    [
      'log built',
      `${formatMebibytes(build.logBytes)} on the leader in ${seconds(build.durationMs)} (${formatNumber(build.logBytes / MEBIBYTE / Math.max(build.durationMs / 1000, 0.001), 1)} MiB/s), high watermark ${formatNumber(build.highWatermark)}`,
    ],
  ];
  if (quorumRestart !== undefined) {
    rows.push([
      `whole quorum, SIG${options.signal}: leader, first commit, new records`,
      `node ${quorumRestart.leaderId} (epoch ${quorumRestart.epoch}) leads ${seconds(quorumRestart.launchToLeaderMs)} after the spawn, first commit ${seconds(quorumRestart.launchToFirstCommitMs)}, first new record committed ${seconds(quorumRestart.launchToWorkloadCommitMs)}`,
    ]);
    for (const open of quorumRestart.opens) rows.push([`whole quorum: node ${open.nodeId}`, openRow(open)]);
  }
  if (followerRestart !== undefined) {
    const follower = followerRestart;
    rows.push(
      [`follower node ${follower.nodeId}, SIG${options.signal}: open`, openRow(follower.open)],
      [
        `follower node ${follower.nodeId}: leader known, caught up`,
        `${seconds(follower.launchToLeaderKnownMs)}, ${seconds(follower.launchToCaughtUpMs)} after the spawn (high watermark ${formatNumber(follower.targetHighWatermark)} after ${seconds(FOLLOWER_DOWN_MS)} down)`,
      ],
      [
        `follower node ${follower.nodeId}: log at stop, reads, peak RSS`,
        `${formatMebibytes(follower.logBytesAtStop)}; read from storage ${formatMebibytes(follower.readBytes)}, read calls ${formatMebibytes(follower.readChars)}; peak RSS ${formatMebibytes(follower.peakRssBytes)}`,
      ],
    );
  }
  if (prefixCheck !== undefined) {
    rows.push([
      'follower log = leader committed log',
      `${prefixCheck.matches ? 'yes' : 'NO'}, ${formatMebibytes(prefixCheck.bytes)} below offset ${formatNumber(prefixCheck.throughOffset)}`,
    ]);
  }
  return {
    title: `restart: ${formatMebibytes(options.logSizeBytes)} log, ${options.nodeCount} nodes, SIG${options.signal}, then ${formatNumber(options.throughputRecordsPerSecond)} × ${options.recordSizeBytes} B/s`,
    verdict: verdictOf(
      result,
      `PASSED: follower log opened ${seconds(followerRestart?.open.launchToLogOpenedMs ?? 0)} and caught up ${seconds(followerRestart?.launchToCaughtUpMs ?? 0)} after its spawn; whole quorum led ${seconds(quorumRestart?.launchToLeaderMs ?? 0)}, first commit ${seconds(quorumRestart?.launchToFirstCommitMs ?? 0)}`,
    ),
    rows,
    notes: [
      `log built with ${formatNumber(BUILD_RECORD_SIZE_BYTES / 1024)} KiB records as fast as the quorum commits; the restarts run ${formatNumber(options.throughputRecordsPerSecond)} × ${options.recordSizeBytes} B/s`,
      "open times from the node's own log lines (`log directory checked` → `opened log`, ms); leader, commit and caught-up times from stats lines every " +
        `${result.resolutionMs} ms, so up to that much late`,
      'reads and peak RSS from /proc/<pid>/io and VmHWM at caught up; storage reads are 0 when the page cache holds the log',
    ],
  };
}
