import type { MetadataScenarioResult } from './metadata-scenario.js';
import { formatMebibytes, formatNumber, type MarkdownSummary, verdictOf } from './results.js';

export function metadataSummary(result: MetadataScenarioResult): MarkdownSummary {
  const { figures, options } = result;
  const usage = result.nodes.flatMap(({ usage: entry }) => (entry === undefined ? [] : [entry]));
  return {
    title: `metadata workload: ${options.nodeCount} nodes, ${formatNumber(result.measuredMs / 1000, 1)} s`,
    verdict: verdictOf(
      result,
      'PASSED: every image digest is equal, every log replays to its node digest, every snapshot decodes to the image its log replays to at its offset.',
    ),
    rows: [
      ['offered (records/s)', formatNumber(options.throughputRecordsPerSecond)],
      ['applied by the leader (records/s)', formatNumber(figures.appliedRecordsPerSecond)],
      ['records appended', formatNumber(figures.appendedRecords)],
      ['records in the final image', formatNumber(figures.imageRecords)],
      ['snapshot threshold', `${formatNumber(options.snapshotThresholdBytes)} bytes`],
      ['snapshots written (all nodes)', formatNumber(figures.snapshotsWritten)],
      ['snapshot bytes written (all nodes)', formatMebibytes(figures.snapshotBytesWritten)],
      ['snapshots decoded and compared', formatNumber(figures.snapshotsChecked)],
      ['image digest', result.nodes[0]?.report?.digest.slice(0, 16) ?? 'none'],
      ...usage.map(
        (entry) =>
          [
            `node ${entry.nodeId}: CPU, peak RSS, disk writes`,
            `${formatNumber(entry.cpuSeconds, 2)} s, ${formatMebibytes(entry.peakRssBytes)}, ${formatMebibytes(entry.writeBytes)}`,
          ] as const,
      ),
    ],
    notes: [`seed ${options.seed}; leader node ${result.leaderId}`],
  };
}
