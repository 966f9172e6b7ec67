/**
 * `pnpm sim`: runs simulation seeds in worker processes and prints Jepsen-style counts; the
 * options are in `SIMULATION_USAGE` (`pnpm sim --help`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { KRaftError } from '@kraft/protocol';
import { MEMBERSHIP_SCENARIOS } from './membership-scenarios.js';
import { runSeed } from './run-seed.js';
import { SCENARIOS } from './scenarios.js';
import { type SeedOptions, type SeedResult, SeedTotals, seedFailed } from './seed-result.js';

export const SIMULATION_USAGE = `Usage: pnpm sim [options]

Runs deterministic simulation seeds and prints their counts; exit 1 if a seed fails.

  KRAFT_SEED=<n> pnpm sim          replay one seed; on failure print its event trace
  pnpm sim --seeds 1000            the CI tier (seeds 1..1000 unless --from), 2 workers
  pnpm sim --seeds 100000 --shards 100   the long tier: per-shard lines, then totals

Options:
  --seeds <n>        how many seeds to run (default 100)
  --from <n>         the first seed (default 1)
  --seed <n>         replay one seed (as KRAFT_SEED)
  --workers <n>      worker processes (default 2)
  --shards <n>       split the run into shards, one line each (default 1)
  --scenario <name>  force one scenario on every seed
  --voter-changes    each seed runs one of the voter change scenarios, drawn from the seed
  --kraft-version <n>  run the nodes at kraft.version 0 (default) or 1 (voters from the log)
  --trace            print the trace tail of every seed
  --trace-lines <n>  trace lines to keep (default 4000)
  -h, --help         print this and exit

Scenarios: ${SCENARIOS.map((scenario) => scenario.name).join(', ')}
Voter change scenarios (kraft.version 1, only when named or with --voter-changes): ${MEMBERSHIP_SCENARIOS.map((scenario) => scenario.name).join(', ')}
`;

/** The exit code for a bad command line, as the test server's. */
export const USAGE_EXIT_CODE = 2;

/** A command line `pnpm sim` cannot run: the message says what is wrong with it. */
export class SimulationUsageError extends KRaftError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
  }

  static isUsageError(value: unknown): value is SimulationUsageError {
    return KRaftError.isInstance(value) && value.code === 'INVALID_ARGUMENT';
  }
}

const VALUE_OPTIONS = [
  'seeds',
  'from',
  'workers',
  'shards',
  'scenario',
  'trace-lines',
  'seed',
  'kraft-version',
];

export interface CliOptions {
  readonly seeds: number[];
  readonly workers: number;
  readonly shards: number;
  readonly replay: boolean;
  readonly printTrace: boolean;
  readonly seedOptions: SeedOptions;
}

export function parseCliArguments(argv: readonly string[], environment: NodeJS.ProcessEnv): CliOptions {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (!argument.startsWith('--')) throw new SimulationUsageError(`unexpected argument '${argument}'`);
    const [name, inline] = argument.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'trace' || name === 'voter-changes') {
      flags.set(name, 'true');
      continue;
    }
    if (!VALUE_OPTIONS.includes(name)) throw new SimulationUsageError(`unknown option --${name}`);
    const value = inline ?? argv[++index];
    if (value === undefined) throw new SimulationUsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  const integer = (name: string, fallback: number): number => {
    const text = flags.get(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 0)
      throw new SimulationUsageError(`--${name} must be a non-negative integer, got '${text}'`);
    return value;
  };
  const scenario = flags.get('scenario');
  const known = [...SCENARIOS, ...MEMBERSHIP_SCENARIOS];
  if (scenario !== undefined && !known.some((candidate) => candidate.name === scenario)) {
    throw new SimulationUsageError(`unknown scenario '${scenario}'`);
  }
  const voterChanges = flags.has('voter-changes');
  if (voterChanges && scenario !== undefined) {
    throw new SimulationUsageError('--voter-changes draws the scenario: it cannot be given with --scenario');
  }
  const kraftVersionText = flags.get('kraft-version');
  if (kraftVersionText !== undefined && kraftVersionText !== '0' && kraftVersionText !== '1') {
    throw new SimulationUsageError(`--kraft-version must be 0 or 1, got '${kraftVersionText}'`);
  }
  const printTrace = flags.has('trace');
  const traceLines = flags.has('trace-lines') ? integer('trace-lines', 4000) : undefined;
  const seedOptions: SeedOptions = {
    ...(scenario === undefined ? {} : { scenario }),
    ...(voterChanges ? { voterChanges } : {}),
    ...(traceLines === undefined ? {} : { traceLines }),
    ...(kraftVersionText === undefined ? {} : { kraftVersion: kraftVersionText === '1' ? 1 : 0 }),
    keepTrace: printTrace,
  };
  const { KRAFT_SEED: seedFromEnvironment } = environment;
  const replaySeed = seedFromEnvironment ?? flags.get('seed');
  if (replaySeed !== undefined) {
    const seed = Number(replaySeed);
    if (!Number.isSafeInteger(seed)) {
      throw new SimulationUsageError(`KRAFT_SEED must be an integer, got '${replaySeed}'`);
    }
    return { seeds: [seed], workers: 1, shards: 1, replay: true, printTrace, seedOptions };
  }
  const count = integer('seeds', 100);
  const from = integer('from', 1);
  return {
    seeds: Array.from({ length: count }, (_, index) => from + index),
    workers: Math.max(1, integer('workers', 2)),
    shards: Math.max(1, integer('shards', 1)),
    replay: false,
    printTrace,
    seedOptions,
  };
}

function describeFailure(result: SeedResult): string {
  const lines = [
    `FAILED seed ${result.seed} (${result.scenario}, ${result.voters} voters, ${result.observers} observers): ` +
      `lost ${result.lost}, duplicated ${result.duplicated}, trace hash ${result.traceHash}`,
    ...result.violations.map((violation) => `  violation: ${violation}`),
    `  replay: KRAFT_SEED=${result.seed} pnpm sim --trace`,
  ];
  return lines.join('\n');
}

/** Runs `seeds` on up to `workers` child processes (in-process when 1), in seed order per chunk. */
export async function runSeeds(
  seeds: readonly number[],
  workers: number,
  seedOptions: SeedOptions,
  onResult: (result: SeedResult) => void,
): Promise<void> {
  if (workers <= 1 || seeds.length <= 1) {
    for (const seed of seeds) onResult(await runSeed(seed, seedOptions));
    return;
  }
  const workerEntry = new URL('../../scripts/sim-worker.ts', import.meta.url);
  const chunkSize = Math.max(1, Math.min(25, Math.ceil(seeds.length / (workers * 8))));
  let next = 0;
  const takeChunk = (): number[] => {
    const chunk = seeds.slice(next, next + chunkSize);
    next += chunk.length;
    return chunk;
  };
  const runWorker = (child: ChildProcess): Promise<void> =>
    new Promise((resolve, reject) => {
      const sendNext = (): void => {
        const chunk = takeChunk();
        if (chunk.length === 0) {
          child.send({ type: 'exit' });
          return;
        }
        child.send({ type: 'run', seeds: chunk, options: seedOptions });
      };
      child.on('message', (message: { type: string; result?: SeedResult; error?: string }) => {
        if (message.type === 'result' && message.result !== undefined) onResult(message.result);
        else if (message.type === 'done') sendNext();
        else if (message.type === 'error') reject(new Error(message.error));
      });
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`sim worker exited with ${code}`)),
      );
      sendNext();
    });
  const children = Array.from({ length: Math.min(workers, seeds.length) }, () =>
    fork(workerEntry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' }),
  );
  try {
    await Promise.all(children.map(runWorker));
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

/** The worker side: runs the chunks the parent sends and reports every seed's result. */
export function serveSeeds(): void {
  process.on('message', (message: { type: string; seeds?: number[]; options?: SeedOptions }) => {
    if (message.type === 'exit') {
      process.disconnect();
      return;
    }
    void (async () => {
      try {
        for (const seed of message.seeds ?? []) {
          process.send?.({ type: 'result', result: await runSeed(seed, message.options ?? {}) });
        }
        process.send?.({ type: 'done' });
      } catch (error) {
        process.send?.({
          type: 'error',
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
    })();
  });
}

/** Where `main` writes; the process's streams unless a test captures them. */
export interface SimulationOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const PROCESS_OUTPUT: SimulationOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** The options, or the exit code after printing the usage (`--help`) or what is wrong with the line. */
function readCommandLine(
  argv: readonly string[],
  environment: NodeJS.ProcessEnv,
  output: SimulationOutput,
): CliOptions | number {
  if (argv.includes('--help') || argv.includes('-h')) {
    output.stdout(SIMULATION_USAGE);
    return 0;
  }
  try {
    return parseCliArguments(argv, environment);
  } catch (error) {
    if (!SimulationUsageError.isUsageError(error)) throw error;
    output.stderr(`pnpm sim: ${error.message}\n\n${SIMULATION_USAGE}`);
    return USAGE_EXIT_CODE;
  }
}

export async function main(
  argv: readonly string[],
  environment: NodeJS.ProcessEnv,
  output: SimulationOutput = PROCESS_OUTPUT,
): Promise<number> {
  const options = readCommandLine(argv, environment, output);
  if (typeof options === 'number') return options;
  const write = (line: string): void => {
    output.stdout(`${line}\n`);
  };
  const startedMs = performance.now();
  const totals = new SeedTotals();
  const shardSize = Math.ceil(options.seeds.length / options.shards);
  for (let shard = 0; shard < options.shards; shard += 1) {
    const shardSeeds = options.seeds.slice(shard * shardSize, (shard + 1) * shardSize);
    if (shardSeeds.length === 0) break;
    const shardTotals = new SeedTotals();
    const shardStartedMs = performance.now();
    await runSeeds(shardSeeds, options.workers, options.seedOptions, (result) => {
      shardTotals.add(result);
      if (seedFailed(result)) write(describeFailure(result));
      if (options.replay) {
        write(
          `seed ${result.seed}: ${result.scenario}, ${result.voters} voters, ${result.observers} observers`,
        );
        write(`trace hash ${result.traceHash}`);
      }
      if ((seedFailed(result) && options.replay) || options.printTrace) {
        write(`--- last ${result.traceTail.length} trace lines of seed ${result.seed} ---`);
        for (const line of result.traceTail) write(line);
      }
    });
    if (options.shards > 1) {
      const first = shardSeeds[0] as number;
      const last = shardSeeds[shardSeeds.length - 1] as number;
      write(
        `shard ${shard + 1}/${options.shards} seeds ${first}-${last}: ` +
          shardTotals.summary(performance.now() - shardStartedMs),
      );
    }
    totals.merge(shardTotals);
  }
  if (totals.failedSeeds.length > 0) {
    write(`failed seeds: ${totals.failedSeeds.sort((left, right) => left - right).join(' ')}`);
  }
  const elapsedMs = performance.now() - startedMs;
  write(`wall: ${(elapsedMs / 1000).toFixed(1)} s on ${options.workers} worker(s)`);
  write(totals.summary(elapsedMs));
  return totals.failedSeeds.length === 0 ? 0 : 1;
}
