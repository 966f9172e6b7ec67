import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it, vi } from 'vitest';
import { COMMIT_LATENCY_HISTOGRAM_PREFIX, CumulativeLatency } from './cumulative-latency.js';

function decode(line: string | undefined) {
  expect(line?.startsWith(COMMIT_LATENCY_HISTOGRAM_PREFIX)).toBe(true);
  return decodeFromCompressedBase64((line as string).slice(COMMIT_LATENCY_HISTOGRAM_PREFIX.length));
}

describe('CumulativeLatency', () => {
  it('prints nothing before the first latency, then every latency since start, in microseconds', () => {
    const latency = new CumulativeLatency();
    expect(latency.line()).toBeUndefined();
    for (const latencyMs of [0.5, 2, 2, 40]) latency.recordMs(latencyMs);
    const first = decode(latency.line());
    expect(first.totalCount).toBe(4);
    expect(first.maxValue).toBeGreaterThanOrEqual(39_900);
    expect(first.getValueAtPercentile(50)).toBeGreaterThanOrEqual(1_990);
    latency.recordMs(5);
    // Never reset: a later line holds the earlier latencies too.
    expect(decode(latency.line()).totalCount).toBe(5);
  });

  it('prints each interval and once more on stop, then never again', () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const latency = new CumulativeLatency();
      latency.start(1000, (line) => lines.push(line));
      vi.advanceTimersByTime(1000);
      expect(lines).toHaveLength(0);
      latency.recordMs(3);
      vi.advanceTimersByTime(2000);
      expect(lines).toHaveLength(2);
      latency.stop();
      expect(lines).toHaveLength(3);
      latency.stop();
      vi.advanceTimersByTime(5000);
      expect(lines).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
