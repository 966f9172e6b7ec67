import { parseArgs } from 'node:util';

export const SCENARIOS = ['metadata', 'kafka', 'failover'] as const;
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
}

export type PerfCommand =
  | { readonly kind: 'run'; readonly options: PerfOptions }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'usage-error'; readonly text: string };

/** Per scenario: Kafka's TestRaftServer defaults for `kafka`, a small quick quorum for `metadata`. */
const DEFAULTS: Record<Scenario, { throughput: number; durationSeconds: number }> = {
  metadata: { throughput: 2_000, durationSeconds: 20 },
  kafka: { throughput: 5_000, durationSeconds: 30 },
  failover: { throughput: 5_000, durationSeconds: 30 },
};

export function perfUsage(): string {
  return [
    'Usage: pnpm perf <scenario> [options]',
    '',
    'Starts test servers on 127.0.0.1 (free ports, fresh temp dirs), waits for a leader, runs the',
    'scenario, stops everything and writes JSON + Markdown results. Exit 1 if the scenario fails.',
    '',
    'Scenarios:',
    '  metadata   metadata records on every node (loader + snapshots); images and snapshots checked',
    "  kafka      Kafka's raft workload: committed records/s, commit latency, CPU per MB, RSS, disk",
    "  failover   kill -9 of the leader under Kafka's workload, K trials: time to a new leader and its first commit",
    '',
    'Options:',
    '  --nodes <1|3|5>          voters (default 3)',
    '  --duration <s>           measured run time (metadata 20, kafka 30)',
    '  --throughput <n>         records/s offered (metadata 2000, kafka 5000)',
    '  --warmup <s>             kafka: unmeasured seconds before the window (JIT, first batches; default 5)',
    '  --record-size <bytes>    kafka: record size (default 256)',
    '  --linger <ms>            kafka: controller.quorum.append.linger.ms (default 25)',
    '  --trials <n>             failover: how many leaders to kill (default 3)',
    '  --snapshot-bytes <n>     metadata: metadata.log.max.record.bytes.between.snapshots (default 65536)',
    '  --seed <n>               metadata: the workload seed (default 1)',
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

export function parsePerfCommandLine(args: readonly string[]): PerfCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return { kind: 'usage-error', text: `${(error as Error).message}\n\n${perfUsage()}` };
  }
  if (parsed.values.help === true) return { kind: 'help', text: perfUsage() };
  const [scenario, ...extra] = parsed.positionals;
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
        recordSizeBytes: integer('record-size', values['record-size'], 256, 1, 1_000_000),
        lingerMs: integer('linger', values.linger, 25, 0, 60_000),
        trials: integer('trials', values.trials, 3, 1, 1_000),
        warmupMs: integer('warmup', values.warmup, 5, 0, 3_600) * 1000,
        snapshotThresholdBytes: integer('snapshot-bytes', values['snapshot-bytes'], 65_536, 1, 2 ** 40),
        seed: integer('seed', values.seed, 1, 0, 2 ** 31 - 1_000_001),
        outputDirectory: values.out,
        keepDirectory: values.keep === true,
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
      warmup: { type: 'string' },
      'snapshot-bytes': { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
