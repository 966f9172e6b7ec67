// Kafka's raft workload shape driven at a peer system through its client: records of one size at
// an offered rate, throttled as the test server's generator (record n due at start + n / rate),
// with no more than a bound of bytes written and not yet acknowledged.
import { encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { buildLatencyHistogram, latencyMicroseconds, latencyPercentilesMs } from '../latency-histogram.js';

/** One write of `value`, resolved once the peer acknowledged it as durable (committed). */
export interface PeerWriter {
  write(sequence: number, value: Buffer): Promise<void>;
}

export interface PeerWorkloadOptions {
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Written but not acknowledged bytes above which the driver waits, as the test server's 4 MiB. */
  readonly maxOutstandingBytes: number;
  /**
   * Requests awaiting their acknowledgement at most: a peer takes one request per record where our
   * leader takes a batch, and thousands queued in a client measure its queue, not the peer.
   */
  readonly maxInFlightWrites: number;
  /** How long the writes outstanding at the end are awaited; those still out count as failed. */
  readonly drainTimeoutMs?: number;
}

export interface PeerWorkloadFigures {
  readonly committedRecords: number;
  readonly windowMs: number;
  readonly committedRecordsPerSecond: number;
  readonly committedBytesPerSecond: number;
  readonly failedWrites: number;
  readonly firstError: string | undefined;
  /** Latency (send to ack) of the acknowledgements in the window, microseconds, compressed base64. */
  readonly latencyHistogram: string | undefined;
  readonly latencyMs: Readonly<Record<string, number>>;
}

/** The driver's tick: Node's timers fire at best every millisecond. */
const TICK_MS = 1;
/** A peer that has not acknowledged in this long after the end is stopped or hung. */
const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/**
 * Runs the workload for warm-up + duration. Acknowledgements that arrive inside the measured
 * window are counted and their latencies recorded, as the kafka scenario counts what its leader
 * commits in the window: a peer slower than the window still shows its rate. Writes still
 * outstanding at the end are awaited for at most `drainTimeoutMs`; what is still out then (a
 * stopped or hung peer) counts as failed writes.
 */
export async function runPeerWorkload(
  writer: PeerWriter,
  options: PeerWorkloadOptions,
): Promise<PeerWorkloadFigures> {
  const { recordSizeBytes, throughputRecordsPerSecond } = options;
  for (const name of [
    'throughputRecordsPerSecond',
    'recordSizeBytes',
    'maxOutstandingBytes',
    'maxInFlightWrites',
  ] as const) {
    // A missing or zero bound would never send (NaN compares false) or never stop sending.
    if (!Number.isSafeInteger(options[name]) || options[name] <= 0) {
      throw new RangeError(`${name} must be a positive integer, got ${options[name]}`);
    }
  }
  const maxOutstandingRecords = Math.max(
    1,
    Math.min(options.maxInFlightWrites, Math.floor(options.maxOutstandingBytes / recordSizeBytes)),
  );
  const value = Buffer.alloc(recordSizeBytes);
  const histogram = buildLatencyHistogram();
  const startMs = performance.now();
  const windowStartMs = startMs + options.warmupMs;
  const windowEndMs = windowStartMs + options.durationMs;
  let sent = 0;
  let outstanding = 0;
  let committedRecords = 0;
  let failedWrites = 0;
  let firstError: string | undefined;
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const sentAtMs = performance.now();
    outstanding += 1;
    const write = writer.write(sent, value).then(
      () => {
        const acknowledgedAtMs = performance.now();
        if (acknowledgedAtMs < windowStartMs || acknowledgedAtMs >= windowEndMs) return;
        committedRecords += 1;
        histogram.recordValue(latencyMicroseconds(acknowledgedAtMs - sentAtMs));
      },
      (error: unknown) => {
        failedWrites += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      },
    );
    const tracked = write.finally(() => {
      outstanding -= 1;
      inFlight.delete(tracked);
    });
    inFlight.add(tracked);
    sent += 1;
  };
  while (performance.now() < windowEndMs) {
    const due = Math.floor(((performance.now() - startMs) * throughputRecordsPerSecond) / 1000) + 1;
    while (sent < due && outstanding < maxOutstandingRecords) send();
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const unacknowledged = await drain(inFlight, drainTimeoutMs);
  if (unacknowledged > 0) {
    failedWrites += unacknowledged;
    firstError ??= `${unacknowledged} writes not acknowledged within ${drainTimeoutMs} ms of the end`;
  }
  const windowMs = options.durationMs;
  const latencyMs = histogram.totalCount > 0 ? latencyPercentilesMs(histogram) : {};
  const figures = {
    committedRecords,
    windowMs,
    committedRecordsPerSecond: (committedRecords * 1000) / windowMs,
    committedBytesPerSecond: (committedRecords * 1000 * recordSizeBytes) / windowMs,
    failedWrites,
    firstError,
    latencyHistogram: histogram.totalCount > 0 ? encodeIntoCompressedBase64(histogram) : undefined,
    latencyMs,
  };
  histogram.destroy();
  return figures;
}

/** Waits for the writes in flight, for at most `timeoutMs`; returns how many are still out. */
async function drain(inFlight: ReadonlySet<Promise<void>>, timeoutMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  try {
    await Promise.race([Promise.all(inFlight), timedOut]);
  } finally {
    clearTimeout(timer);
  }
  return inFlight.size;
}
