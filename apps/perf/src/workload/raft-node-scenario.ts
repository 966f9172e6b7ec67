// `pnpm perf raft-node`: the embeddable RaftNode in one process per node (raft-node/), the
// figures an application sees: how long `propose` takes to resolve at low load, and how long
// proposals fail after kill -9 of the leader until one commits in the next epoch.
import { loadavg } from 'node:os';
import type { RaftNodeConfig } from '@kraft/raft';
import { encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { percentile } from '../chaos/silent-failover.js';
import type { ProposeReply, RaftNodeProcess } from '../raft-node/raft-node-process.js';
import { RaftNodeQuorum } from '../raft-node/raft-node-quorum.js';
import { buildLatencyHistogram, latencyMicroseconds, latencyPercentilesMs } from './latency-histogram.js';
import type { PerfOptions } from './perf-command-line.js';
import { formatNumber, type MarkdownSummary, verdictOf } from './results.js';
import { sleep } from './scenario-run.js';

/** A first election (from every node started) or a failover takes seconds; more is a stuck quorum. */
const LEADER_TIMEOUT_MS = 30_000;
/** Between rounds of proposals while no node leads: the resolution of the failover time. */
const RETRY_MS = 10;
/** A fresh quorum's leader runs this long before it is killed (the test-server failover's steady time). */
const STEADY_MS = 2_000;

export type RaftNodeScenarioOptions = Pick<
  PerfOptions,
  'nodeCount' | 'trials' | 'recordSizeBytes' | 'lingerMs' | 'proposals' | 'warmupProposals' | 'proposers'
> & {
  /** Where the quorums' directories go (default the OS temp dir). */
  readonly baseDirectory?: string;
};

/** One closed-loop latency case on one quorum's leader. */
export interface ProposeLatencyCase {
  readonly proposers: number;
  readonly leaderId: number;
  readonly epoch: number;
  /** `propose()` to its promise resolving, in the leader's process: p50 ... p99.99 and max. */
  readonly proposeMs: Record<string, number>;
  /** The runner's send to its reply: the same plus one IPC hop each way. */
  readonly roundTripMs: Record<string, number>;
  /** The measured `proposeMs` samples (µs, HdrHistogram, compressed base64). */
  readonly proposeHistogram: string;
  /** Measured proposals over the time from the first one's send to the last one's reply. */
  readonly committedPerSecond: number;
  /** Every acknowledged offset (warm-up included) in the order the replies arrived. */
  readonly acknowledgedOffsets: readonly number[];
}

export interface RaftNodeFailoverTrial {
  readonly killedNodeId: number;
  readonly killedEpoch: number;
  /** The last proposal the killed leader acknowledged, just before its kill. */
  readonly lastOffsetBefore: number;
  readonly newLeaderId: number;
  readonly newEpoch: number;
  readonly firstOffsetAfter: number;
  /** From the kill to the reply of the first proposal committed in a later epoch. */
  readonly firstCommitMs: number;
}

export interface RaftNodeScenarioResult {
  readonly scenario: 'raft-node';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: RaftNodeScenarioOptions;
  readonly resolutionMs: number;
  /** `os.loadavg()` (1, 5, 15 minutes) when the run started and when it ended. */
  readonly loadAverage: { readonly atStart: readonly number[]; readonly atEnd: readonly number[] };
  readonly latency: readonly ProposeLatencyCase[];
  readonly failover: {
    readonly trials: readonly RaftNodeFailoverTrial[];
    /** Of `firstCommitMs` over the trials (nearest rank). */
    readonly firstCommitMs: {
      readonly p50: number;
      readonly p99: number;
      readonly min: number;
      readonly max: number;
    };
  };
}

type Committed = ProposeReply & { readonly kind: 'committed' };

/** What the scenario uses of a node: its id, `propose` and kill -9 (a RaftNodeProcess, or a test's fake). */
export type ProposingNode = Pick<RaftNodeProcess, 'nodeId' | 'propose' | 'kill'>;

/** The first offset not above the one before it, or undefined when every offset is unique and increasing. */
export function firstOffsetOutOfOrder(offsets: readonly number[]): string | undefined {
  for (let index = 1; index < offsets.length; index += 1) {
    const previous = offsets[index - 1] as number;
    const offset = offsets[index] as number;
    if (offset <= previous) return `acknowledgement ${index} has offset ${offset} after ${previous}`;
  }
  return undefined;
}

function describeReply(reply: ProposeReply): string {
  switch (reply.kind) {
    case 'committed':
      return `committed at ${reply.offset} in epoch ${reply.epoch}`;
    case 'not-leader':
      return `not the leader of epoch ${reply.epoch} (leader ${reply.leaderId ?? 'unknown'})`;
    case 'failed':
      return reply.error;
    case 'exited':
      return 'the process exited';
  }
}

/**
 * Proposes `value` on each of `nodes` at once, round after round, until one commits it in an
 * epoch of at least `minimumEpoch`: a non-leader refuses at once (NotLeaderError), so a round
 * costs one IPC round-trip per node while no node leads.
 */
async function commitOnAny<Node extends ProposingNode>(
  nodes: readonly Node[],
  value: string,
  minimumEpoch: number,
): Promise<{ readonly node: Node; readonly reply: Committed }> {
  const deadlineMs = performance.now() + LEADER_TIMEOUT_MS;
  for (;;) {
    const replies = await Promise.all(nodes.map((node) => node.propose(value)));
    for (const [index, reply] of replies.entries()) {
      const node = nodes[index] as Node;
      if (reply.kind === 'exited')
        throw new Error(`raft node ${node.nodeId} exited while a leader was awaited`);
      if (reply.kind === 'committed' && reply.epoch >= minimumEpoch) return { node, reply };
    }
    if (performance.now() > deadlineMs) {
      const views = replies.map((reply, index) => `node ${nodes[index]?.nodeId}: ${describeReply(reply)}`);
      throw new Error(
        `no commit in epoch ${minimumEpoch} or later within ${LEADER_TIMEOUT_MS} ms (${views.join('; ')})`,
      );
    }
    await sleep(RETRY_MS);
  }
}

const proposedValue = (options: RaftNodeScenarioOptions): string =>
  // jsonSerde writes a string with its two quotes: the record's value is recordSizeBytes long.
  'v'.repeat(Math.max(0, options.recordSizeBytes - 2));

/**
 * `proposers` closed loops on `leader`, each with one proposal outstanding, until all are sent.
 * An acknowledged offset not above the one acknowledged before it, or a second epoch, is a failure.
 */
export async function measureLatency(
  leader: ProposingNode,
  proposers: number,
  options: RaftNodeScenarioOptions,
  failures: string[],
): Promise<ProposeLatencyCase> {
  const value = proposedValue(options);
  const total = options.warmupProposals + options.proposals;
  const propose = buildLatencyHistogram();
  const roundTrip = buildLatencyHistogram();
  const acknowledgedOffsets: number[] = [];
  const epochs = new Set<number>();
  let claimed = 0;
  let firstSentAtMs = Number.POSITIVE_INFINITY;
  let lastReceivedAtMs = 0;
  const loop = async () => {
    while (claimed < total && failures.length === 0) {
      const index = claimed++;
      const reply = await leader.propose(value);
      if (reply.kind !== 'committed') {
        failures.push(`${proposers} proposer(s), proposal ${index}: ${describeReply(reply)}`);
        return;
      }
      acknowledgedOffsets.push(reply.offset);
      epochs.add(reply.epoch);
      if (index < options.warmupProposals) continue;
      propose.recordValue(latencyMicroseconds(reply.proposeMs));
      roundTrip.recordValue(latencyMicroseconds(reply.receivedAtMs - reply.sentAtMs));
      firstSentAtMs = Math.min(firstSentAtMs, reply.sentAtMs);
      lastReceivedAtMs = Math.max(lastReceivedAtMs, reply.receivedAtMs);
    }
  };
  await Promise.all(Array.from({ length: proposers }, loop));
  const outOfOrder = firstOffsetOutOfOrder(acknowledgedOffsets);
  if (outOfOrder !== undefined) failures.push(`${proposers} proposer(s): ${outOfOrder}`);
  if (epochs.size > 1) failures.push(`${proposers} proposer(s): the leader changed (epochs ${[...epochs]})`);
  return {
    proposers,
    leaderId: leader.nodeId,
    epoch: [...epochs][0] ?? 0,
    proposeMs: latencyPercentilesMs(propose),
    roundTripMs: latencyPercentilesMs(roundTrip),
    proposeHistogram: encodeIntoCompressedBase64(propose),
    committedPerSecond: (propose.totalCount * 1000) / Math.max(1, lastReceivedAtMs - firstSentAtMs),
    acknowledgedOffsets,
  };
}

function quorumOptions(options: RaftNodeScenarioOptions) {
  // Kafka's defaults for every timeout (election 1 s, fetch 2 s, ...), as the test server's failover runs.
  const config: RaftNodeConfig = { appendLingerMs: options.lingerMs };
  return {
    nodeCount: options.nodeCount,
    config,
    ...(options.baseDirectory === undefined ? {} : { baseDirectory: options.baseDirectory }),
  };
}

/** A fresh quorum each trial: see `failoverTrial`. */
function runFailoverTrial(
  options: RaftNodeScenarioOptions,
  failures: string[],
): Promise<RaftNodeFailoverTrial> {
  return RaftNodeQuorum.run(quorumOptions(options), (quorum) =>
    failoverTrial(quorum.nodes, proposedValue(options), failures),
  );
}

/**
 * The leader of `nodes` commits, runs `steadyMs`, commits again, is killed; the next commit in a
 * later epoch is timed. A commit after the kill not above the last one before it is a failure
 * (the new leader lost an acknowledged value).
 */
export async function failoverTrial(
  nodes: readonly ProposingNode[],
  value: string,
  failures: string[],
  steadyMs = STEADY_MS,
): Promise<RaftNodeFailoverTrial> {
  const { node: leader } = await commitOnAny(nodes, value, 0);
  await sleep(steadyMs);
  const before = await leader.propose(value);
  if (before.kind !== 'committed') throw new Error(`the leader refused a proposal: ${describeReply(before)}`);
  const killedAtMs = performance.now();
  leader.kill();
  const survivors = nodes.filter((node) => node !== leader);
  const after = await commitOnAny(survivors, value, before.epoch + 1);
  if (after.reply.offset <= before.offset) {
    failures.push(`offset ${after.reply.offset} committed after the kill is not above ${before.offset}`);
  }
  return {
    killedNodeId: leader.nodeId,
    killedEpoch: before.epoch,
    lastOffsetBefore: before.offset,
    newLeaderId: after.node.nodeId,
    newEpoch: after.reply.epoch,
    firstOffsetAfter: after.reply.offset,
    firstCommitMs: after.reply.receivedAtMs - killedAtMs,
  };
}

function spread(values: readonly number[]): RaftNodeScenarioResult['failover']['firstCommitMs'] {
  return {
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** Both latency cases on one quorum, then `trials` failovers, each on a fresh quorum. */
export async function runRaftNodeScenario(
  options: RaftNodeScenarioOptions,
  progress: (line: string) => void = () => {},
): Promise<RaftNodeScenarioResult> {
  const atStart = loadavg();
  const failures: string[] = [];
  const latency: ProposeLatencyCase[] = [];
  const trials: RaftNodeFailoverTrial[] = [];
  if (options.nodeCount < 3)
    failures.push('raft-node needs at least 3 nodes: a failover needs a majority left');
  if (failures.length === 0) {
    await RaftNodeQuorum.run(quorumOptions(options), async (quorum) => {
      const { node: leader } = await commitOnAny(quorum.nodes, proposedValue(options), 0);
      for (const proposers of [1, options.proposers]) {
        latency.push(await measureLatency(leader, proposers, options, failures));
        progress(`  ${proposers} proposer(s): p99 ${latency.at(-1)?.proposeMs['p99']} ms`);
      }
    });
    for (let trial = 0; trial < options.trials && failures.length === 0; trial += 1) {
      trials.push(await runFailoverTrial(options, failures));
      progress(
        `  failover ${trial + 1}: ${formatNumber(trials.at(-1)?.firstCommitMs ?? 0)} ms to the next commit`,
      );
    }
  }
  return {
    scenario: 'raft-node',
    passed: failures.length === 0,
    failures,
    options,
    resolutionMs: RETRY_MS,
    loadAverage: { atStart, atEnd: loadavg() },
    latency,
    failover: { trials, firstCommitMs: spread(trials.map((trial) => trial.firstCommitMs)) },
  };
}

const milliseconds = (values: readonly number[]): string =>
  `${values.map((value) => formatNumber(value, 2)).join(' / ')} ms`;

export function raftNodeSummary(result: RaftNodeScenarioResult): MarkdownSummary {
  const { options, failover } = result;
  const latencyRows = result.latency.map(
    (latency) =>
      [
        `propose, ${latency.proposers} closed-loop proposer(s): p50 / p99 / max`,
        `${milliseconds([latency.proposeMs['p50'] ?? Number.NaN, latency.proposeMs['p99'] ?? Number.NaN, latency.proposeMs['max'] ?? Number.NaN])} (runner's round-trip ${milliseconds([latency.roundTripMs['p50'] ?? Number.NaN, latency.roundTripMs['p99'] ?? Number.NaN, latency.roundTripMs['max'] ?? Number.NaN])}), ${formatNumber(latency.committedPerSecond)} commits/s`,
      ] as const,
  );
  const { p50, p99, min, max } = failover.firstCommitMs;
  const failoverRows =
    failover.trials.length === 0
      ? []
      : [
          [
            `failover, kill -9 of the leader → first commit in a later epoch (${failover.trials.length} trials): p50 / p99 / min / max`,
            milliseconds([p50, p99, min, max]),
          ] as const,
          ...failover.trials.map(
            (trial, index) =>
              [
                `trial ${index + 1}: node ${trial.killedNodeId} (epoch ${trial.killedEpoch}) → node ${trial.newLeaderId} (epoch ${trial.newEpoch})`,
                `${formatNumber(trial.firstCommitMs)} ms, offset ${trial.lastOffsetBefore} → ${trial.firstOffsetAfter}`,
              ] as const,
          ),
        ];
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(', ');
  return {
    title: `raft-node: RaftNode in ${options.nodeCount} processes, ${formatNumber(options.proposals)} × ${options.recordSizeBytes} B proposals per case after ${formatNumber(options.warmupProposals)}, linger ${options.lingerMs} ms, ${options.trials} kill -9 failovers`,
    verdict: verdictOf(result),
    rows: [
      ...latencyRows,
      ...failoverRows,
      [
        'load average (1, 5, 15 min) at start / end',
        `${load(result.loadAverage.atStart)} / ${load(result.loadAverage.atEnd)}`,
      ],
    ],
    notes: [
      "propose: from `propose()` to its promise resolving in the leader's process (appended, replicated to a majority, flushed, committed); the runner's round-trip adds the IPC hop",
      `failover: a fresh quorum each trial; Kafka's default timeouts; the survivors are offered a proposal every ${result.resolutionMs} ms until one commits`,
    ],
  };
}
