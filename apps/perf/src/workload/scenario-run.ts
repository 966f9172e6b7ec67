import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalNode, LocalQuorum } from './local-quorum.js';
import { type ProcessUsage, readProcessUsage } from './process-usage.js';

/** A node's CPU, peak memory and disk writes over the measured window (CPU and writes as deltas). */
export interface NodeUsage {
  readonly nodeId: number;
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
  readonly writeBytes: number;
}

/** Usage of every running node now, by node id. */
export function usageNow(quorum: LocalQuorum): Map<number, ProcessUsage> {
  const usage = new Map<number, ProcessUsage>();
  for (const node of quorum.nodes) {
    const sample = node.pid === undefined ? undefined : readProcessUsage(node.pid);
    if (sample !== undefined) usage.set(node.nodeId, sample);
  }
  return usage;
}

/** End minus start for CPU and writes (start-up work is not the workload's); the peak RSS as it is. */
export function usageBetween(
  start: ReadonlyMap<number, ProcessUsage>,
  end: ReadonlyMap<number, ProcessUsage>,
): NodeUsage[] {
  return [...end].map(([nodeId, last]) => {
    const first = start.get(nodeId);
    return {
      nodeId,
      cpuSeconds: last.cpuSeconds - (first?.cpuSeconds ?? 0),
      peakRssBytes: last.peakRssBytes,
      writeBytes: last.writeBytes - (first?.writeBytes ?? 0),
    };
  });
}

/** Sleeps `durationMs`, failing early if a node exits meanwhile. */
export async function runFor(quorum: LocalQuorum, durationMs: number): Promise<void> {
  const endMs = performance.now() + durationMs;
  await quorum.waitFor('the end of the run', durationMs + 10_000, () => performance.now() >= endMs);
}

/** The lines of `node` that start with `prefix`, parsed as JSON after it, newest last. */
export function collectJsonLines<T>(node: LocalNode, prefix: string): T[] {
  const lines: T[] = [];
  node.onLine((line) => {
    if (line.startsWith(prefix)) lines.push(JSON.parse(line.slice(prefix.length)) as T);
  });
  return lines;
}

export { sleep };
