import { KRaftError, Uuid } from '@kraft/protocol';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { isReservedDirectoryId } from '../storage/dynamic-voters.js';
import { RECORD_TAG_BYTES } from '../workload/workload-history.js';

/** What the server runs with, once the command line is parsed and validated. */
export interface CommandLineOptions {
  readonly configPath: string;
  /**
   * `--replica-directory-id`: the directory id this node must run with. Undefined: the one in the
   * log dir's meta.properties, or (first start of an unformatted dir) a random one written there.
   */
  readonly replicaDirectoryId?: Uuid;
  /** `--require-formatted`: an unformatted log dir is a fatal error instead of being formatted. */
  readonly requireFormatted?: boolean;
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
  /** `--history-file`: tag each record (node, epoch, sequence) and record each append's outcome there. */
  readonly historyFile?: string;
  /** `--workload`: Kafka's raft workload (opaque records; also when absent) or metadata records through a MetadataLoader. */
  readonly workload?: WorkloadKind;
  /** `--seed`: the metadata workload's record choices; undefined draws one at start. */
  readonly seed?: number;
  /** `--print-latency-histogram`: the raft workload prints its cumulative commit-latency histogram with each stats line. */
  readonly printLatencyHistogram?: boolean;
  /** `--latency-from-intended-send`: commit latency from each append's intended send time (open loop, no coordinated omission). */
  readonly latencyFromIntendedSend?: boolean;
  /** `--metrics-port`: serve Prometheus metrics on this port (0: any free one), over `kraft.metrics.port`. */
  readonly metricsPort?: number;
}

export const WORKLOAD_KINDS = ['raft', 'metadata'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export type CommandLineResult =
  | { readonly kind: 'run'; readonly options: CommandLineOptions }
  /** `--help`: print `text` to stdout and exit 0. */
  | { readonly kind: 'help'; readonly text: string }
  /** A missing or bad option: print `message` and `usage` to stderr and exit 2. */
  | { readonly kind: 'usage-error'; readonly message: string; readonly usage: string };

/** Exit code for a command-line mistake, as getopt-style tools use (Kafka's tool exits 1; see README). */
export const USAGE_EXIT_CODE = 2;

/** What a tool's command line can come to besides running: `--help`, or a usage error. */
export type HelpOrUsageError =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'usage-error'; readonly message: string; readonly usage: string };

/**
 * What every tool here does with those: the help on stdout (exit 0), or the error and the usage
 * on stderr (exit 2). Returns the exit code.
 */
export function reportHelpOrUsageError(
  result: HelpOrUsageError,
  output: { readonly stdoutLine: (line: string) => void; readonly stderrText: (text: string) => void },
): number {
  if (result.kind === 'help') {
    output.stdoutLine(result.text.trimEnd());
    return 0;
  }
  output.stderrText(`${result.message}\n\n${result.usage}`);
  return USAGE_EXIT_CODE;
}

/** Kafka's TestRaftServer defaults. */
export const DEFAULT_THROUGHPUT_RECORDS_PER_SECOND = 5000;
export const DEFAULT_RECORD_SIZE_BYTES = 256;

/** Records are zero-filled, as Kafka's, and carry no append time; sizes divide the byte budgets, so at least 1. */
export const MINIMUM_RECORD_SIZE_BYTES = 1;
/** One record must fit in a fetch of the default `controller.quorum.fetch.max.bytes` (1 MiB) with headroom. */
export const MAXIMUM_RECORD_SIZE_BYTES = 1_000_000;
/** Far above what one node can commit; it only catches typos such as a stray exponent. */
export const MAXIMUM_THROUGHPUT_RECORDS_PER_SECOND = 10_000_000;

/** Seeds are 32-bit (raft's SeededRandom); epochs are added to it, so it stays well below 2^32. */
export const MAXIMUM_SEED = 2 ** 31 - 1;

const PROGRAM_NAME = 'test-kraft-server-start.sh';

function integerInRange(name: string, minimum: number, maximum: number): (text: string) => number {
  return (text) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
      throw new InvalidArgumentError(`${name} must be an integer in [${minimum}, ${maximum}], got '${text}'`);
    }
    return value;
  };
}

function workloadKind(text: string): WorkloadKind {
  if (!(WORKLOAD_KINDS as readonly string[]).includes(text)) {
    throw new InvalidArgumentError(`one of ${WORKLOAD_KINDS.join(', ')} is expected, got '${text}'`);
  }
  return text as WorkloadKind;
}

function directoryId(text: string): Uuid {
  let uuid: Uuid;
  try {
    uuid = Uuid.fromString(text);
  } catch (error) {
    const reason = KRaftError.isInstance(error) ? error.message : String(error);
    throw new InvalidArgumentError(`a Kafka Uuid in its 22-character base64url form is expected (${reason})`);
  }
  if (isReservedDirectoryId(uuid)) {
    throw new InvalidArgumentError(`'${text}' is a reserved directory id; use a random one`);
  }
  return uuid;
}

function buildCommand(): Command {
  return new Command(PROGRAM_NAME)
    .description("Runs one node of a KRaft quorum with Kafka's __raft_performance_test workload")
    .requiredOption('--config <file>', 'server properties file (Kafka key names)')
    .option(
      '--replica-directory-id <uuid>',
      "this node's directory id, a Kafka Uuid such as b8tRS7h4TJ2Vt43Dp85v2A; when omitted, the one in the log dir's meta.properties (a random one on the first start of an unformatted dir)",
      directoryId,
    )
    .option(
      '--require-formatted',
      'refuse to start on an unformatted log dir (no meta.properties) instead of formatting it with the zero cluster id; format it first with kraft-storage.sh format',
    )
    .option(
      '--throughput <records/s>',
      'records per second the leader appends',
      integerInRange('--throughput', 1, MAXIMUM_THROUGHPUT_RECORDS_PER_SECOND),
      DEFAULT_THROUGHPUT_RECORDS_PER_SECOND,
    )
    .option(
      '--record-size <bytes>',
      'payload size of each record',
      integerInRange('--record-size', MINIMUM_RECORD_SIZE_BYTES, MAXIMUM_RECORD_SIZE_BYTES),
      DEFAULT_RECORD_SIZE_BYTES,
    )
    .option(
      '--history-file <file>',
      'tag each record with (node, epoch, sequence) and append every operation (invoke/ok/fail/info) to this file',
    )
    .option(
      '--workload <kind>',
      "raft: Kafka's __raft_performance_test records; metadata: metadata records applied by a MetadataLoader with snapshots",
      workloadKind,
      'raft' as WorkloadKind,
    )
    .option(
      '--seed <n>',
      "the metadata workload's seed (each epoch a node leads draws from seed + epoch); random by default",
      integerInRange('--seed', 0, MAXIMUM_SEED),
    )
    .option(
      '--print-latency-histogram',
      "print the leader's cumulative commit-latency HdrHistogram (compressed base64) with each stats line and at the stop",
    )
    .option(
      '--latency-from-intended-send',
      'measure commit latency from when the throttler meant each append to go, not when it went (open-loop runs)',
    )
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics at http://<kraft.metrics.host>:<port>/metrics (0: a free port, logged); overrides kraft.metrics.port',
      integerInRange('--metrics-port', 0, 65_535),
    )
    .helpOption('-h, --help', 'print this help and exit')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
}

/** The usage text, as `--help` prints it. */
export function usageText(): string {
  return buildCommand().helpInformation();
}

/** Parses `args` (the arguments after the script name); never exits the process itself. */
export function parseCommandLine(args: readonly string[]): CommandLineResult {
  const command = buildCommand();
  try {
    command.parse([...args], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') {
      return { kind: 'help', text: command.helpInformation() };
    }
    return { kind: 'usage-error', message: error.message, usage: command.helpInformation() };
  }
  const values = command.opts<{
    config: string;
    replicaDirectoryId?: Uuid;
    requireFormatted?: boolean;
    throughput: number;
    recordSize: number;
    historyFile?: string;
    workload: WorkloadKind;
    seed?: number;
    printLatencyHistogram?: boolean;
    latencyFromIntendedSend?: boolean;
    metricsPort?: number;
  }>();
  if (values.historyFile !== undefined && values.workload === 'metadata') {
    return {
      kind: 'usage-error',
      message: 'error: --history-file records the raft workload; the metadata workload has no record tags',
      usage: command.helpInformation(),
    };
  }
  if (values.historyFile !== undefined && values.recordSize < RECORD_TAG_BYTES) {
    return {
      kind: 'usage-error',
      message: `error: --history-file needs --record-size of at least ${RECORD_TAG_BYTES} bytes (the record tag), got ${values.recordSize}`,
      usage: command.helpInformation(),
    };
  }
  return {
    kind: 'run',
    options: {
      configPath: values.config,
      ...(values.replicaDirectoryId === undefined ? {} : { replicaDirectoryId: values.replicaDirectoryId }),
      ...(values.requireFormatted === true ? { requireFormatted: true } : {}),
      throughputRecordsPerSecond: values.throughput,
      recordSizeBytes: values.recordSize,
      ...(values.historyFile === undefined ? {} : { historyFile: values.historyFile }),
      workload: values.workload,
      ...(values.seed === undefined ? {} : { seed: values.seed }),
      ...(values.printLatencyHistogram === true ? { printLatencyHistogram: true } : {}),
      ...(values.latencyFromIntendedSend === true ? { latencyFromIntendedSend: true } : {}),
      ...(values.metricsPort === undefined ? {} : { metricsPort: values.metricsPort }),
    },
  };
}
