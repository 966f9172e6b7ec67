/**
 * `pnpm sim`: runs simulation seeds in worker processes and prints Jepsen-style counts.
 *
 *   KRAFT_SEED=<n> pnpm sim          replay one seed; on failure print its event trace
 *   pnpm sim --seeds 1000            the CI tier (seeds 1..1000 unless --from), 2 workers
 *   pnpm sim --seeds 100000 --shards 100   the long tier: per-shard lines, then totals
 *   options: --from <n>  --workers <n>  --scenario <name>  --trace (print the trace tail)
 *            --trace-lines <n> (how many trace lines to keep, default 4000)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { runSeed } from './run-seed.js';
import { type SeedOptions, type SeedResult, SeedTotals, seedFailed } from './seed-result.js';

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
    if (!argument.startsWith('--')) throw new Error(`unexpected argument '${argument}'`);
    const [name, inline] = argument.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'trace') {
      flags.set(name, 'true');
      continue;
    }
    const value = inline ?? argv[++index];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    flags.set(name, value);
  }
  for (const name of flags.keys()) {
    if (!['seeds', 'from', 'workers', 'shards', 'scenario', 'trace', 'trace-lines', 'seed'].includes(name)) {
      throw new Error(`unknown option --${name}`);
    }
  }
  const integer = (name: string, fallback: number): number => {
    const text = flags.get(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`--${name} must be a non-negative integer`);
    return value;
  };
  const scenario = flags.get('scenario');
  const printTrace = flags.has('trace');
  const traceLines = flags.has('trace-lines') ? integer('trace-lines', 4000) : undefined;
  const seedOptions: SeedOptions = {
    ...(scenario === undefined ? {} : { scenario }),
    ...(traceLines === undefined ? {} : { traceLines }),
    keepTrace: printTrace,
  };
  const { KRAFT_SEED: seedFromEnvironment } = environment;
  const replaySeed = seedFromEnvironment ?? flags.get('seed');
  if (replaySeed !== undefined) {
    const seed = Number(replaySeed);
    if (!Number.isSafeInteger(seed)) throw new Error(`KRAFT_SEED must be an integer, got '${replaySeed}'`);
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

export async function main(argv: readonly string[], environment: NodeJS.ProcessEnv): Promise<number> {
  const options = parseCliArguments(argv, environment);
  const write = (line: string): void => {
    process.stdout.write(`${line}\n`);
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
