import { Cluster, type ClusterOptions } from '../../src/testing/cluster.js';
import { ALL_INVARIANTS } from '../../src/testing/invariants.js';
import type { SimulationRaftConfig } from '../../src/testing/node-factory.js';
import { SimulationRandom } from '../../src/testing/simulation-random.js';
import { MEMBERSHIP_SCENARIOS } from './membership-scenarios.js';
import {
  parseSabotage,
  plantCoreSabotage,
  type Sabotage,
  sabotagedClient,
  sabotagedLog,
} from './sabotage.js';
import { scenarioForSeed, scenarioNamed } from './scenarios.js';
import type { SeedOptions, SeedResult } from './seed-result.js';
import { Trace } from './trace.js';

/**
 * Environment overrides for exploration: `KRAFT_SIM_CODEC=0` skips the protocol round trip,
 * `KRAFT_SIM_SABOTAGE=<name>` plants a known bug. The tiers use neither.
 */
const { KRAFT_SIM_CODEC: codecSetting, KRAFT_SIM_SABOTAGE: SABOTAGE_FROM_ENVIRONMENT } = process.env;
const CODEC_FROM_ENVIRONMENT = codecSetting !== '0';

/** How often an admin client asks the leader for DescribeQuorum (simulated time). */
const DESCRIBE_QUORUM_INTERVAL_MS = 500;

/** How often every node is asked for a snapshot above its high watermark (simulated time). */
const SNAPSHOT_PROBE_INTERVAL_MS = 300;

/** The most events one seed may run before it counts as stuck (Kafka: 500,000 iterations). */
export const MAX_EVENTS_PER_SEED = 500_000;

/** Timeouts scaled down from Kafka's defaults, keeping their ratios (Kafka's simulation does too). */
function raftConfigFor(random: SimulationRandom): SimulationRaftConfig {
  const quorum = {
    electionTimeoutMs: 500,
    electionBackoffMaxMs: 250,
    fetchTimeoutMs: 1_000,
    appendLingerMs: random.pick([0, 0, 2, 10]),
    requestTimeoutMs: 600,
    retryBackoffMs: 20,
    fetchMaxWaitMs: 100,
    // Small fetches and snapshot chunks make followers take several round trips.
    fetchMaxBytes: random.pick([1, 512, 4_096, 1024 * 1024]),
    fetchSnapshotMaxBytes: random.pick([64, 1_024, 1024 * 1024]),
    logCleanIntervalMs: 200,
  };
  const log = {
    segmentBytes: random.pick([2_048, 8_192, 65_536]),
    retentionMaxBytes: random.pick([4_096, 16_384, -1]),
    preallocateSegments: random.chance(0.3),
  };
  // Kafka's 8 MiB on most seeds; on the others a buffer smaller than one committed read, even
  // smaller than one batch, so listener reads refill it many times (KAFKA-20841's shape).
  const listenerReadBufferBytes = random.pick([8 * 1024 * 1024, 8 * 1024 * 1024, 64, 256, 1_024]);
  return { quorum, log, listenerReadBufferBytes };
}

/** The cluster's hooks that plant `sabotage` in every node's log and client (none without one). */
function sabotageHooks(
  sabotage: Sabotage | undefined,
  config: SimulationRaftConfig,
): Pick<ClusterOptions, 'wrapLog' | 'wrapClient'> {
  if (sabotage === undefined) return {};
  return {
    wrapLog: (log) => sabotagedLog(log, sabotage, config.listenerReadBufferBytes),
    wrapClient: (client, log) => sabotagedClient(client, log, sabotage),
  };
}

/** Runs one seed from scratch; everything it does follows from `seed`. */
export async function runSeed(seed: number, options: SeedOptions = {}): Promise<SeedResult> {
  const startedMs = performance.now();
  const random = new SimulationRandom(seed);
  // Draw the seed's own choice even when one is forced, so forcing its own scenario replays it.
  const chosen = scenarioForSeed(random);
  // The voter change scenarios run only when named: the seeds' own choice stays as it was.
  const named = MEMBERSHIP_SCENARIOS.find((candidate) => candidate.name === options.scenario);
  const scenario =
    options.voterChanges === true
      ? random.pick(MEMBERSHIP_SCENARIOS)
      : options.scenario === undefined
        ? chosen
        : (named ?? scenarioNamed(options.scenario));
  const { voters, observers } = scenario.size(random);
  const sabotage = parseSabotage(options.sabotage ?? SABOTAGE_FROM_ENVIRONMENT);
  // The kraft.version is an option, not a draw: the seed's random sequence stays the same.
  const raftConfig = {
    ...raftConfigFor(random),
    ...(scenario.kraftVersion === undefined ? {} : { kraftVersion: scenario.kraftVersion }),
    ...(scenario.autoJoin === true ? { autoJoin: true } : {}),
    ...(options.kraftVersion === undefined ? {} : { kraftVersion: options.kraftVersion }),
  };
  const trace = new Trace(options.traceLines ?? 4000);
  const cluster = new Cluster({
    voters,
    observers,
    random,
    raftConfig,
    roundTripMessages: options.roundTripMessages ?? CODEC_FROM_ENVIRONMENT,
    ...sabotageHooks(sabotage, raftConfig),
    snapshotEveryRecords: random.pick([5, 20, 100]),
    // A fast disk on most seeds; a slower fdatasync on the others, so appends, polls and crashes
    // land while a flush is in flight in every scenario, not only under the slow-flush fault.
    flushDelayMaxMs: random.pick([2, 2, 5, 20]),
    maxEvents: MAX_EVENTS_PER_SEED,
    trace,
  });
  const disabled = Object.fromEntries((options.disabledInvariants ?? []).map((name) => [name, false]));
  cluster.checker.selection = { ...ALL_INVARIANTS, ...scenario.invariants, ...disabled };
  cluster.trace.record(0, `seed ${seed} scenario ${scenario.name} voters ${voters} observers ${observers}`);
  cluster.startDescribeQuorumProbe(DESCRIBE_QUORUM_INTERVAL_MS);
  cluster.startSnapshotProbe(SNAPSHOT_PROBE_INTERVAL_MS);
  const removeCoreSabotage = plantCoreSabotage(sabotage);
  try {
    await scenario.run(cluster, random);
  } catch (error) {
    cluster.violation(
      `harness error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  } finally {
    removeCoreSabotage();
  }
  const appliedEnds = cluster.runningNodes().map((running) => running.counter.appliedOffset());
  const committedEnd = appliedEnds.length === 0 ? 0 : Math.min(...appliedEnds);
  let lost = 0;
  for (const [value, offset] of cluster.acked) {
    if (offset >= committedEnd || cluster.history.offsetOfValue(value) !== offset) lost += 1;
  }
  const failed = cluster.violations.length > 0 || lost > 0 || cluster.history.duplicatedValues() > 0;
  return {
    seed,
    scenario: scenario.name,
    voters,
    observers,
    events: cluster.events,
    simulatedMs: cluster.nowMs(),
    acked: cluster.acked.size,
    lost,
    duplicated: cluster.history.duplicatedValues(),
    indeterminate: cluster.indeterminateValues(),
    violations: [...cluster.violations],
    crashes: cluster.crashes,
    traceHash: trace.finish(),
    traceTail: failed || options.keepTrace === true ? trace.tail() : [],
    wallMs: performance.now() - startedMs,
  };
}
