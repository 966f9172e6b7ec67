import { parseArgs } from 'node:util';
import { FAILOVER_SIGNALS, type FailoverSignal } from './failover-scenario.js';

export const SCENARIOS = [
  'metadata',
  'kafka',
  'open-loop',
  'sweep',
  'failover',
  'peers',
  'restart',
  'catch-up',
  'raft-node',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The exit code for a bad command line, as `pnpm bench`'s and the test server's. */
export const USAGE_EXIT_CODE = 2;

export interface PerfOptions {
  readonly scenario: Scenario;
  readonly nodeCount: number;
  readonly durationMs: number;
  /** kafka: run this long after the leader is elected before the measured window starts. */
  readonly warmupMs: number;
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
  readonly lingerMs: number;
  readonly trials: number;
  readonly snapshotThresholdBytes: number;
  readonly seed: number;
  readonly outputDirectory: string | undefined;
  readonly keepDirectory: boolean;
  /** sweep: the offered throughputs (records/s) and record sizes, every pair a point. */
  readonly throughputs: readonly number[];
  readonly recordSizes: readonly number[];
  /** failover: what the leader is sent; restart: what the stopped nodes are sent. */
  readonly signal: FailoverSignal;
  /** restart: the log built before the restarts. */
  readonly logSizeBytes: number;
  /** raft-node: measured proposals per latency case, after `warmupProposals` left out. */
  readonly proposals: number;
  readonly warmupProposals: number;
  /** raft-node: the closed-loop proposers of the concurrent latency case (the other has one). */
  readonly proposers: number;
}

export type PerfCommand =
  | { readonly kind: 'run'; readonly options: PerfOptions }
  /** `pnpm perf report <dir>`: the HTML report again from the JSON results saved there. */
  | { readonly kind: 'report'; readonly directory: string }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'usage-error'; readonly text: string };

/** Per scenario: Kafka's TestRaftServer defaults for `kafka`, a small quick quorum for `metadata`. */
const DEFAULTS: Record<Scenario, { throughput: number; durationSeconds: number; warmupSeconds: number }> = {
  metadata: { throughput: 2_000, durationSeconds: 20, warmupSeconds: 5 },
  kafka: { throughput: 5_000, durationSeconds: 30, warmupSeconds: 5 },
  // Above what this machine's quorum commits (docs/performance.md P4): the bound holds the rest back.
  'open-loop': { throughput: 400_000, durationSeconds: 15, warmupSeconds: 5 },
  sweep: { throughput: 5_000, durationSeconds: 5, warmupSeconds: 2 },
  failover: { throughput: 5_000, durationSeconds: 30, warmupSeconds: 5 },
  peers: { throughput: 5_000, durationSeconds: 10, warmupSeconds: 2 },
  // restart: the workload while the quorum and the follower restart (the log is built at full speed).
  restart: { throughput: 5_000, durationSeconds: 0, warmupSeconds: 0 },
  // catch-up: metadata records; the duration is each latency window before the restart. The
  // follower waits for the leader's retention (a minute after its start) anyway: longer costs nothing.
  'catch-up': { throughput: 2_000, durationSeconds: 10, warmupSeconds: 10 },
  // raft-node: closed loops of proposals, counted rather than timed (--proposals); no throughput.
  'raft-node': { throughput: 1, durationSeconds: 0, warmupSeconds: 0 },
};
/** raft-node: enough failovers for a p50 and a spread (ten trials of about 3 s each with start-up). */
const DEFAULT_RAFT_NODE_TRIALS = 10;
/** raft-node: about the size of a small metadata record. */
const DEFAULT_RAFT_NODE_RECORD_SIZE_BYTES = 100;
/** restart: a log that fits a loaded 2-core machine and its disk three times over in a minute or so. */
const DEFAULT_LOG_SIZE_MEBIBYTES = 256;
const MAX_LOG_SIZE_MEBIBYTES = 64 * 1024;
const DEFAULT_SWEEP_THROUGHPUTS = [5_000, 20_000, 80_000];
const DEFAULT_SWEEP_RECORD_SIZES = [256, 1_024];
/** A sweep is a few short runs, not a grid that takes an afternoon. */
const MAX_SWEEP_POINTS = 64;
/**
 * The largest metadata seed the test server takes (apps/test-server/src/cli/command-line.ts
 * MAXIMUM_SEED, 2^31 - 1) less its epoch offset room (compose.ts MAX_EPOCH_OFFSET, 1,000,000):
 * each epoch a node leads draws from seed + epoch.
 */
const MAXIMUM_METADATA_SEED = 2 ** 31 - 1 - 1_000_000;

export function perfUsage(): string {
  return [
    'Usage: pnpm perf <scenario> [options]',
    '       pnpm perf report <results-dir>   the HTML report again from the JSON results there',
    '',
    'Starts test servers on 127.0.0.1 (free ports, fresh temp dirs), waits for a leader, runs the',
    'scenario, stops everything and writes JSON, Markdown and an HTML report. Exit 1 if it fails.',
    '',
    'Scenarios:',
    '  metadata   metadata records on every node (loader + snapshots); images and snapshots checked',
    "  kafka      Kafka's raft workload: committed records/s, commit latency, CPU per MB, RSS, disk",
    '  open-loop  kafka offered above capacity (outstanding bytes bounded), latency from intended send times',
    '  sweep      short kafka runs over --throughputs × --record-sizes: the throughput-latency curve',
    "  failover   SIGKILL (or --signal TERM) to the leader under Kafka's workload, K trials: time to a new leader and its first commit",
    '  peers      the same workload shape on 3-member etcd and ZooKeeper (Debian packages) where installed',
    '  restart    builds a --log-size log, restarts the whole quorum and one follower on it (SIGTERM, or --kill): open, leader, catch-up times',
    "  catch-up   a follower stopped until the leader's log start passes its end, restarted: FetchSnapshot, catch-up, leader p99",
    '  raft-node  RaftNode in 3 processes: propose round-trip (1 and --proposers closed loops), kill -9 of the leader to the next commit',
    '',
    'Options:',
    '  --nodes <1|3|5>          voters (default 3)',
    '  --duration <s>           measured run time (metadata 20, kafka 30, open-loop 15, sweep 5 per point, peers 10, catch-up 10 per latency window)',
    '  --throughput <n>         records/s offered (metadata and catch-up 2000, kafka and restart 5000, open-loop 400000)',
    '  --warmup <s>             unmeasured seconds before the window (JIT, first batches; default 5, sweep 2, catch-up 10)',
    '  --record-size <bytes>    kafka, restart: record size (default 256); raft-node: the proposed value (default 100)',
    '  --linger <ms>            kafka, raft-node: controller.quorum.append.linger.ms (default 25)',
    `  --trials <n>             failover: how many leaders to kill (default 3; raft-node ${DEFAULT_RAFT_NODE_TRIALS}, a fresh quorum each)`,
    '  --proposals <n>          raft-node: measured proposals per latency case (default 2000)',
    '  --warmup-proposals <n>   raft-node: proposals before those, left out (default 200)',
    '  --proposers <n>          raft-node: closed-loop proposers of the concurrent case (default 16)',
    '  --signal <KILL|TERM>     failover: what the leader is sent (default KILL); restart: what the nodes are sent (default TERM)',
    '  --kill                   the same as --signal KILL',
    `  --log-size <MiB>         restart: the log built before the restarts (default ${DEFAULT_LOG_SIZE_MEBIBYTES}; 2 GiB: 2048)`,
    `  --throughputs <a,b,..>   sweep: offered records/s (default ${DEFAULT_SWEEP_THROUGHPUTS.join(',')})`,
    `  --record-sizes <a,b,..>  sweep: record sizes in bytes (default ${DEFAULT_SWEEP_RECORD_SIZES.join(',')})`,
    '  --snapshot-bytes <n>     metadata, catch-up: metadata.log.max.record.bytes.between.snapshots (default 65536)',
    '  --seed <n>               metadata, catch-up: the workload seed (default 1)',
    '  --out <dir>              results directory (default <tmp>/kraft-perf-results)',
    '  --keep                   keep the run dir (configs, logs, stderr) even when it passes',
    '  -h, --help               print this and exit',
    '',
  ].join('\n');
}

function integer(name: string, text: string | undefined, fallback: number, minimum: number, maximum: number) {
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new RangeError(`--${name} must be an integer in [${minimum}, ${maximum}], got '${text}'`);
  }
  return value;
}

function integerList(name: string, text: string | undefined, fallback: readonly number[], maximum: number) {
  if (text === undefined) return fallback;
  const values = text.split(',').map((item) => integer(name, item.trim(), 0, 1, maximum));
  return values;
}

export function parsePerfCommandLine(args: readonly string[]): PerfCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return { kind: 'usage-error', text: `${(error as Error).message}\n\n${perfUsage()}` };
  }
  if (parsed.values.help === true) return { kind: 'help', text: perfUsage() };
  const [scenario, ...extra] = parsed.positionals;
  if (scenario === 'report') {
    if (extra.length === 1 && extra[0] !== undefined) return { kind: 'report', directory: extra[0] };
    return { kind: 'usage-error', text: `report takes one results directory\n\n${perfUsage()}` };
  }
  if (scenario === undefined || !(SCENARIOS as readonly string[]).includes(scenario) || extra.length > 0) {
    const got = scenario === undefined ? 'none' : `'${[scenario, ...extra].join(' ')}'`;
    return {
      kind: 'usage-error',
      text: `one scenario of ${SCENARIOS.join(', ')} is expected, got ${got}\n\n${perfUsage()}`,
    };
  }
  const defaults = DEFAULTS[scenario as Scenario];
  const values = parsed.values;
  try {
    const nodeCount = integer('nodes', values.nodes, 3, 1, 5);
    if (![1, 3, 5].includes(nodeCount)) throw new RangeError(`--nodes must be 1, 3 or 5, got ${nodeCount}`);
    const throughputs = integerList('throughputs', values.throughputs, DEFAULT_SWEEP_THROUGHPUTS, 10_000_000);
    const recordSizes = integerList(
      'record-sizes',
      values['record-sizes'],
      DEFAULT_SWEEP_RECORD_SIZES,
      1_000_000,
    );
    if (throughputs.length * recordSizes.length > MAX_SWEEP_POINTS) {
      throw new RangeError(
        `a sweep has at most ${MAX_SWEEP_POINTS} points, got ${throughputs.length * recordSizes.length}`,
      );
    }
    if (values.kill === true && values.signal !== undefined)
      throw new RangeError('--kill and --signal exclude each other');
    const defaultSignal = scenario === 'restart' ? 'TERM' : 'KILL';
    const raftNode = scenario === 'raft-node';
    const signal = (values.kill === true ? 'KILL' : (values.signal ?? defaultSignal))
      .toUpperCase()
      .replace(/^SIG/, '');
    if (!(FAILOVER_SIGNALS as readonly string[]).includes(signal)) {
      throw new RangeError(`--signal must be one of ${FAILOVER_SIGNALS.join(', ')}, got '${values.signal}'`);
    }
    return {
      kind: 'run',
      options: {
        scenario: scenario as Scenario,
        nodeCount,
        durationMs: integer('duration', values.duration, defaults.durationSeconds, 1, 86_400) * 1000,
        throughputRecordsPerSecond: integer(
          'throughput',
          values.throughput,
          defaults.throughput,
          1,
          10_000_000,
        ),
        recordSizeBytes: integer(
          'record-size',
          values['record-size'],
          raftNode ? DEFAULT_RAFT_NODE_RECORD_SIZE_BYTES : 256,
          1,
          1_000_000,
        ),
        lingerMs: integer('linger', values.linger, 25, 0, 60_000),
        trials: integer('trials', values.trials, raftNode ? DEFAULT_RAFT_NODE_TRIALS : 3, 1, 1_000),
        warmupMs: integer('warmup', values.warmup, defaults.warmupSeconds, 0, 3_600) * 1000,
        snapshotThresholdBytes: integer('snapshot-bytes', values['snapshot-bytes'], 65_536, 1, 2 ** 40),
        seed: integer('seed', values.seed, 1, 0, MAXIMUM_METADATA_SEED),
        outputDirectory: values.out,
        keepDirectory: values.keep === true,
        throughputs,
        recordSizes,
        signal: signal as FailoverSignal,
        logSizeBytes:
          integer('log-size', values['log-size'], DEFAULT_LOG_SIZE_MEBIBYTES, 1, MAX_LOG_SIZE_MEBIBYTES) *
          1024 *
          1024,
        proposals: integer('proposals', values.proposals, 2_000, 1, 10_000_000),
        warmupProposals: integer('warmup-proposals', values['warmup-proposals'], 200, 0, 10_000_000),
        proposers: integer('proposers', values.proposers, 16, 1, 1_024),
      },
    };
  } catch (error) {
    return { kind: 'usage-error', text: `${(error as Error).message}\n\n${perfUsage()}` };
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      nodes: { type: 'string' },
      duration: { type: 'string' },
      throughput: { type: 'string' },
      'record-size': { type: 'string' },
      linger: { type: 'string' },
      trials: { type: 'string' },
      signal: { type: 'string' },
      kill: { type: 'boolean' },
      'log-size': { type: 'string' },
      throughputs: { type: 'string' },
      'record-sizes': { type: 'string' },
      warmup: { type: 'string' },
      'snapshot-bytes': { type: 'string' },
      seed: { type: 'string' },
      proposals: { type: 'string' },
      'warmup-proposals': { type: 'string' },
      proposers: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
