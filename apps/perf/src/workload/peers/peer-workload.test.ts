import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { type PeerWriter, runPeerWorkload } from './peer-workload.js';

/** Acknowledges each write when told to; tracks how many were ever outstanding at once. */
class HeldWriter implements PeerWriter {
  readonly pending: (() => void)[] = [];
  sizes = new Set<number>();
  maxOutstanding = 0;

  write(_sequence: number, value: Buffer): Promise<void> {
    this.sizes.add(value.length);
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.maxOutstanding = Math.max(this.maxOutstanding, this.pending.length);
    });
  }

  releaseAll(): void {
    for (const resolve of this.pending.splice(0)) resolve();
  }
}

describe('runPeerWorkload', () => {
  it('never has more than maxOutstandingBytes unacknowledged, however far behind the peer is', async () => {
    const writer = new HeldWriter();
    const run = runPeerWorkload(writer, {
      throughputRecordsPerSecond: 100_000,
      recordSizeBytes: 100,
      warmupMs: 0,
      durationMs: 100,
      maxOutstandingBytes: 1_000,
      maxInFlightWrites: 1_000,
    });
    // Acknowledge nothing until the run is over: only the bound limits the sender.
    setTimeout(() => writer.releaseAll(), 150);
    await new Promise((resolve) => setTimeout(resolve, 160));
    writer.releaseAll();
    const figures = await run;
    expect(writer.maxOutstanding).toBe(10);
    expect([...writer.sizes]).toEqual([100]);
    expect(figures.failedWrites).toBe(0);
  });

  it('waits for the writes still out at the end at most drainTimeoutMs, and counts them as failed', async () => {
    const writer = new HeldWriter();
    const figures = await runPeerWorkload(writer, {
      throughputRecordsPerSecond: 100_000,
      recordSizeBytes: 10,
      warmupMs: 0,
      durationMs: 30,
      maxOutstandingBytes: 1_000_000,
      maxInFlightWrites: 5,
      drainTimeoutMs: 20,
    });
    // A hung peer: nothing was ever acknowledged, and the run still ends.
    expect(writer.pending).toHaveLength(5);
    expect(figures.failedWrites).toBe(5);
    expect(figures.firstError).toBe('5 writes not acknowledged within 20 ms of the end');
    expect(figures.committedRecords).toBe(0);
  });

  it('never has more than maxInFlightWrites requests unacknowledged, even when bytes allow more', async () => {
    const writer = new HeldWriter();
    const run = runPeerWorkload(writer, {
      throughputRecordsPerSecond: 100_000,
      recordSizeBytes: 10,
      warmupMs: 0,
      durationMs: 50,
      maxOutstandingBytes: 1_000_000,
      maxInFlightWrites: 7,
    });
    await new Promise((resolve) => setTimeout(resolve, 70));
    writer.releaseAll();
    await run;
    expect(writer.maxOutstanding).toBe(7);
  });

  it('with the in-flight bound reached, each acknowledgement lets the next write go and it counts', async () => {
    const figures = await runPeerWorkload(
      { write: () => new Promise((resolve) => setTimeout(resolve, 5)) },
      {
        throughputRecordsPerSecond: 10_000,
        recordSizeBytes: 10,
        warmupMs: 50,
        durationMs: 200,
        maxOutstandingBytes: 1_000_000,
        maxInFlightWrites: 4,
      },
    );
    expect(figures.failedWrites).toBe(0);
    expect(figures.committedRecords).toBeGreaterThan(10);
  });

  it('counts and times the writes acknowledged in the window, and the failed ones apart', async () => {
    let sequence = 0;
    const writer: PeerWriter = {
      write: (written) => {
        sequence = written;
        return written % 10 === 9 ? Promise.reject(new Error('no quorum')) : Promise.resolve();
      },
    };
    const figures = await runPeerWorkload(writer, {
      throughputRecordsPerSecond: 2_000,
      recordSizeBytes: 64,
      warmupMs: 20,
      durationMs: 200,
      maxOutstandingBytes: 1_000_000,
      maxInFlightWrites: 1_000,
    });
    expect(sequence).toBeGreaterThan(100);
    expect(figures.committedRecords).toBeGreaterThan(0);
    expect(figures.failedWrites).toBeGreaterThan(0);
    expect(figures.firstError).toBe('no quorum');
    expect(figures.committedBytesPerSecond).toBe(figures.committedRecordsPerSecond * 64);
    const histogram = decodeFromCompressedBase64(figures.latencyHistogram as string);
    expect(histogram.totalCount).toBe(figures.committedRecords);
    histogram.destroy();
  });

  it('refuses a bound that is missing or not a positive integer', async () => {
    const options = {
      throughputRecordsPerSecond: 10,
      recordSizeBytes: 10,
      warmupMs: 0,
      durationMs: 10,
      maxOutstandingBytes: 100,
    };
    await expect(
      runPeerWorkload(new HeldWriter(), { ...options, maxInFlightWrites: Number.NaN }),
    ).rejects.toThrow('maxInFlightWrites must be a positive integer, got NaN');
    await expect(
      runPeerWorkload(new HeldWriter(), { ...options, maxInFlightWrites: 1, recordSizeBytes: 0 }),
    ).rejects.toThrow('recordSizeBytes must be a positive integer');
  });
});
