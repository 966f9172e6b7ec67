// `pnpm perf <scenario> [options]`: the workload generator (ADR 0027). Usage: perf-command-line.ts.

import { RaftNodeQuorum } from '../raft-node/raft-node-quorum.js';
import { runCatchUpScenario } from './catch-up-scenario.js';
import { runFailoverScenario } from './failover-scenario.js';
import { runKafkaScenario } from './kafka-scenario.js';
import { LocalQuorum } from './local-quorum.js';
import { runMetadataScenario } from './metadata-scenario.js';
import { PeerCluster } from './peers/peer-cluster.js';
import { runPeersScenario } from './peers/peers-scenario.js';
import { type PerfOptions, parsePerfCommandLine, USAGE_EXIT_CODE } from './perf-command-line.js';
import { runRaftNodeScenario } from './raft-node-scenario.js';
import { renderReportHtml, writeReport } from './report/render-report.js';
import { runRestartScenario } from './restart-scenario.js';
import { defaultResultsDirectory, writeResults } from './results.js';
import { type ScenarioResult, scenarioSummary } from './scenario-summary.js';
import { runSweepScenario } from './sweep-scenario.js';

/**
 * Whatever happens (Ctrl-C, SIGTERM, a crash), every server this runner started is killed; an
 * interrupted run's dir goes too (a failed one is kept by the scenario, which says where).
 */
function destroyActiveQuorums(): void {
  for (const quorum of LocalQuorum.active) quorum.destroy(false);
  for (const cluster of PeerCluster.active) cluster.destroyNow();
  for (const quorum of RaftNodeQuorum.active) quorum.destroy();
}

function runScenario(options: PerfOptions): Promise<ScenarioResult> {
  const progress = (line: string) => process.stdout.write(`${line}\n`);
  switch (options.scenario) {
    case 'metadata':
      return runMetadataScenario(options);
    case 'kafka':
      return runKafkaScenario(options);
    case 'open-loop':
      return runKafkaScenario({ ...options, openLoop: true });
    case 'sweep':
      return runSweepScenario(options, (point) =>
        progress(
          `  point ${point.options.throughputRecordsPerSecond} × ${point.options.recordSizeBytes} B: ${Math.round(point.figures.committedRecordsPerSecond)} records/s committed, p99 ${point.figures.latencyMs['p99'] ?? '-'} ms`,
        ),
      );
    case 'failover':
      return runFailoverScenario(options);
    case 'peers':
      return runPeersScenario(options, progress);
    case 'restart':
      return runRestartScenario(options);
    case 'catch-up':
      return runCatchUpScenario(options);
    case 'raft-node':
      return runRaftNodeScenario(options, progress);
  }
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
  if (command.kind === 'report') {
    process.stdout.write(`report: ${await writeReport(command.directory)}\n`);
    return 0;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      destroyActiveQuorums();
      process.exit(130);
    });
  }
  process.once('exit', destroyActiveQuorums);
  const { options } = command;
  const result = await runScenario(options);
  const summary = scenarioSummary(result);
  const html = await renderReportHtml([result], { generatedAt: new Date().toISOString() });
  const paths = writeResults(
    options.outputDirectory ?? defaultResultsDirectory(),
    options.scenario,
    result,
    summary,
    html,
  );
  process.stdout.write(
    `${summary.verdict.split('\n')[0]}\n${summary.rows.map(([name, value]) => `  ${name}: ${value}`).join('\n')}\n`,
  );
  process.stdout.write(`results: ${paths.json}\n         ${paths.markdown}\n         ${paths.html}\n`);
  return result.passed ? 0 : 1;
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
