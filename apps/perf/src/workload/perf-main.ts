// `pnpm perf <scenario> [options]`: the workload generator (ADR 0027). Usage: perf-command-line.ts.

import { failoverSummary, runFailoverScenario } from './failover-scenario.js';
import { kafkaSummary, runKafkaScenario } from './kafka-scenario.js';
import { LocalQuorum } from './local-quorum.js';
import { runMetadataScenario } from './metadata-scenario.js';
import { metadataSummary } from './metadata-summary.js';
import { type PerfOptions, parsePerfCommandLine, USAGE_EXIT_CODE } from './perf-command-line.js';
import { defaultResultsDirectory, type MarkdownSummary, writeResults } from './results.js';

/**
 * Whatever happens (Ctrl-C, SIGTERM, a crash), every server this runner started is killed; an
 * interrupted run's dir goes too (a failed one is kept by the scenario, which says where).
 */
function destroyActiveQuorums(): void {
  for (const quorum of LocalQuorum.active) quorum.destroy(false);
}

async function runScenario(
  options: PerfOptions,
): Promise<{ passed: boolean; result: unknown; summary: MarkdownSummary }> {
  if (options.scenario === 'metadata') {
    const result = await runMetadataScenario(options);
    return { passed: result.passed, result, summary: metadataSummary(result) };
  }
  if (options.scenario === 'kafka') {
    const result = await runKafkaScenario(options);
    return { passed: result.passed, result, summary: kafkaSummary(result) };
  }
  const result = await runFailoverScenario(options);
  return { passed: result.passed, result, summary: failoverSummary(result) };
}

async function main(): Promise<number> {
  const command = parsePerfCommandLine(process.argv.slice(2));
  if (command.kind === 'help') {
    process.stdout.write(command.text);
    return 0;
  }
  if (command.kind === 'usage-error') {
    process.stderr.write(`${command.text}`);
    return USAGE_EXIT_CODE;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      destroyActiveQuorums();
      process.exit(130);
    });
  }
  process.once('exit', destroyActiveQuorums);
  const { options } = command;
  const { passed, result, summary } = await runScenario(options);
  const paths = writeResults(
    options.outputDirectory ?? defaultResultsDirectory(),
    options.scenario,
    result,
    summary,
  );
  process.stdout.write(
    `${summary.verdict.split('\n')[0]}\n${summary.rows.map(([name, value]) => `  ${name}: ${value}`).join('\n')}\n`,
  );
  process.stdout.write(`results: ${paths.json}\n         ${paths.markdown}\n`);
  return passed ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `pnpm perf failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    destroyActiveQuorums();
    process.exitCode = 1;
  },
);
