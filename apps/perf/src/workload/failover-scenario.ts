import { testServerEntryMode } from '../support/test-server-process.js';
import { type LocalNode, LocalQuorum, raftWorkloadArguments } from './local-quorum.js';
import type { PerfOptions } from './perf-command-line.js';
import { formatNumber, type MarkdownSummary, verdictOf } from './results.js';
import { sleep } from './scenario-run.js';

/** Stats lines this often: the resolution of the measured times. */
const STATS_INTERVAL_MS = 50;
const LEADER_TIMEOUT_MS = 30_000;
/** Commits flow this long before each kill, and after a restart before the next trial. */
const STEADY_MS = 2_000;
const FAILOVER_TIMEOUT_MS = 30_000;

export type FailoverScenarioOptions = Pick<
  PerfOptions,
  'nodeCount' | 'trials' | 'throughputRecordsPerSecond' | 'recordSizeBytes' | 'keepDirectory'
> & {
  readonly baseDirectory?: string;
  /** KILL: the leader dies at once; TERM: it shuts down cleanly (older results have none: KILL). */
  readonly signal?: FailoverSignal;
};

export const FAILOVER_SIGNALS = ['KILL', 'TERM'] as const;
export type FailoverSignal = (typeof FAILOVER_SIGNALS)[number];

export interface FailoverTrial {
  readonly killedNodeId: number;
  readonly killedEpoch: number;
  readonly newLeaderId: number;
  readonly newEpoch: number;
  /** From the kill to the first stats line of a new leader in a later epoch. */
  readonly electedMs: number;
  /** From the kill to the first line in which that leader's high watermark passed every earlier one. */
  readonly firstCommitMs: number;
}

export interface FailoverScenarioResult {
  readonly scenario: 'failover';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: FailoverScenarioOptions;
  readonly resolutionMs: number;
  /**
   * From the quorum's launch to the first stats line of a leader every node knows (the runner's
   * clock), and what the nodes ran: built JavaScript or the sources through tsx. Older results
   * have neither.
   */
  readonly startup?: { readonly launchToLeaderMs: number; readonly entry: 'built' | 'source' };
  readonly trials: readonly FailoverTrial[];
}

function highestWatermark(quorum: LocalQuorum): number {
  return Math.max(0, ...quorum.nodes.map((node) => node.maxHighWatermark));
}

/** `signal` to the leader, then the times until a new leader and its first commit, from stats lines. */
async function runTrial(quorum: LocalQuorum, signal: FailoverSignal): Promise<FailoverTrial> {
  const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
  const killedEpoch = leader.status?.epoch ?? 0;
  const committedBefore = highestWatermark(quorum);
  const killedMs = performance.now();
  quorum.kill(leader, `SIG${signal}`);
  let elected: { node: LocalNode; atMs: number; epoch: number } | undefined;
  let firstCommitMs: number | undefined;
  await quorum.waitFor('a new leader to commit', FAILOVER_TIMEOUT_MS, () => {
    for (const node of quorum.nodes) {
      const status = node.status;
      if (node === leader || status === undefined || status.role.toLowerCase() !== 'leader') continue;
      if (status.epoch <= killedEpoch) continue;
      elected ??= { node, atMs: performance.now(), epoch: status.epoch };
      if (node === elected.node && (status.highWatermark ?? 0) > committedBefore)
        firstCommitMs ??= performance.now();
    }
    return firstCommitMs !== undefined;
  });
  const winner = elected as NonNullable<typeof elected>;
  await leader.exited();
  leader.start();
  // The restart's module loading and log recovery are start-up time, not the rejoin's.
  await quorum.waitForStart();
  await quorum.waitFor(
    'the killed node to rejoin',
    LEADER_TIMEOUT_MS,
    () => leader.status?.leaderId !== undefined,
  );
  await sleep(STEADY_MS);
  return {
    killedNodeId: leader.nodeId,
    killedEpoch,
    newLeaderId: winner.node.nodeId,
    newEpoch: winner.epoch,
    electedMs: winner.atMs - killedMs,
    firstCommitMs: (firstCommitMs as number) - killedMs,
  };
}

/** K trials of a signal (kill -9 by default) to the leader under Kafka's raft workload, each killed node restarted after. */
export async function runFailoverScenario(options: FailoverScenarioOptions): Promise<FailoverScenarioResult> {
  const quorumOptions = {
    ...options,
    serverArguments: raftWorkloadArguments(options.throughputRecordsPerSecond, options.recordSizeBytes),
    statsIntervalMs: STATS_INTERVAL_MS,
  };
  const entry = testServerEntryMode();
  return LocalQuorum.run(quorumOptions, async (quorum) => {
    const failures: string[] = [];
    if (options.nodeCount < 3) failures.push('failover needs at least 3 nodes');
    const trials: FailoverTrial[] = [];
    let startup: FailoverScenarioResult['startup'];
    if (failures.length === 0) {
      await quorum.waitForLeader(LEADER_TIMEOUT_MS);
      // The nodes were launched one after the other: the first one's launch starts the clock.
      const launchToLeaderMs = Math.max(...quorum.nodes.map((node) => node.millisecondsSinceLaunch()));
      startup = { launchToLeaderMs, entry };
      await sleep(STEADY_MS);
      for (let trial = 0; trial < options.trials; trial += 1)
        trials.push(await runTrial(quorum, options.signal ?? 'KILL'));
    }
    await quorum.stopAll();
    const passed = failures.length === 0;
    return {
      scenario: 'failover' as const,
      passed,
      failures,
      options,
      resolutionMs: STATS_INTERVAL_MS,
      ...(startup === undefined ? {} : { startup }),
      trials,
    };
  });
}

export function failoverSummary(result: FailoverScenarioResult): MarkdownSummary {
  const { options } = result;
  return {
    title: `failover: SIG${options.signal ?? 'KILL'} to the leader, ${result.trials.length} trials, ${options.nodeCount} nodes, ${formatNumber(options.throughputRecordsPerSecond)} × ${options.recordSizeBytes} B/s`,
    verdict: verdictOf(result),
    rows: [
      ...(result.startup === undefined
        ? []
        : [
            [
              `start-up (${result.startup.entry === 'built' ? 'built JavaScript' : 'sources through tsx'})`,
              `launch → a leader every node knows ${formatNumber(result.startup.launchToLeaderMs / 1000, 2)} s`,
            ] as const,
          ]),
      ...result.trials.map(
        (trial, index) =>
          [
            `trial ${index + 1}: node ${trial.killedNodeId} (epoch ${trial.killedEpoch}) → node ${trial.newLeaderId} (epoch ${trial.newEpoch})`,
            `elected ${formatNumber(trial.electedMs / 1000, 2)} s, first commit ${formatNumber(trial.firstCommitMs / 1000, 2)} s`,
          ] as const,
      ),
    ],
    notes: [
      `times from the signal to the first stats line showing it (lines every ${result.resolutionMs} ms, so up to that much late)`,
    ],
  };
}
