import { RecordsSnapshotWriter } from '../../src/internals/records-snapshot-writer.js';
import type { RaftLog } from '../../src/ports/raft-log.js';
import { FollowerState } from '../../src/states/follower-state.js';
import type { SimulatedClient } from '../../src/testing/node-factory.js';
import { readInWholeBufferFills } from '../kit/whole-buffer-fills.js';

/**
 * Deliberate bugs planted in the node under test, to prove the invariants catch them (mutation
 * testing of the simulator). Never on in the tiers; `KRAFT_SIM_SABOTAGE=<name>` or
 * `SeedOptions.sabotage` turns one on. In the log (through its port):
 * - `unsynced-flush`: `flush()` reports everything appended as durable without syncing it, so a
 *   crash loses data the leader already counted toward the high watermark.
 * - `committed-read-past-hwm`: a committed read returns uncommitted data too (KAFKA-20841's
 *   class of bug), so listeners could apply offsets at or above the high watermark.
 * - `flush-reports-log-end`: a completed flush reports (and the log claims durable) the log end
 *   at completion instead of the end it captured when it started, so what was appended while the
 *   sync ran counts toward the high watermark without being on disk. Harmless while flushes are
 *   instantaneous; it takes flushes that last simulated time for anything to append meanwhile.
 * - `committed-refill-past-hwm`: KAFKA-20841 itself: a committed read larger than the listener's
 *   read buffer comes back as the whole buffer fills an unbounded `readInto` makes, the last one
 *   running past the high watermark into uncommitted bytes. Invisible with Kafka's 8 MiB buffer
 *   and small records; it takes seeds with a small buffer.
 * In the core (a wrapper or a patched method, never a branch in src/):
 * - `snapshot-above-hwm`: `createSnapshot` without the core's high-watermark check, so only the
 *   log's own check refuses a snapshot above the high watermark.
 * - `pre-vote-despite-leader`: a follower grants pre-votes while it still hears from a live
 *   leader, so a follower that was cut off and comes back can depose a leader that is fine.
 */
export const SABOTAGES = [
  'unsynced-flush',
  'committed-read-past-hwm',
  'flush-reports-log-end',
  'committed-refill-past-hwm',
  'snapshot-above-hwm',
  'pre-vote-despite-leader',
] as const;
export type Sabotage = (typeof SABOTAGES)[number];

export function parseSabotage(name: string | undefined): Sabotage | undefined {
  if (name === undefined || name === '') return undefined;
  if (!(SABOTAGES as readonly string[]).includes(name)) {
    throw new Error(`unknown sabotage '${name}'; known: ${SABOTAGES.join(', ')}`);
  }
  return name as Sabotage;
}

/** A view of `target` whose listed methods are replaced. */
function withOverrides<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get: (object, property) => {
      if (typeof property === 'string' && property in overrides) {
        return overrides[property as keyof T];
      }
      const value = Reflect.get(object, property, object) as unknown;
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/** The node's log with `sabotage`'s planted bug, if it lives behind the log port. */
export function sabotagedLog(log: RaftLog, sabotage: Sabotage, listenerReadBufferBytes: number): RaftLog {
  let claimedFlushed = log.lastFlushedOffset();
  const overridesBySabotage: Record<Sabotage, Partial<RaftLog>> = {
    'unsynced-flush': {
      flush: () => {
        claimedFlushed = log.endOffset();
        return Promise.resolve(claimedFlushed);
      },
      lastFlushedOffset: () => Math.min(claimedFlushed, log.endOffset()),
    },
    'committed-read-past-hwm': {
      read: (startOffset, _isolation, maxSizeBytes) => log.read(startOffset, 'uncommitted', maxSizeBytes),
    },
    'flush-reports-log-end': {
      flush: () =>
        log.flush().then(() => {
          claimedFlushed = log.endOffset();
          return claimedFlushed;
        }),
      lastFlushedOffset: () => Math.max(log.lastFlushedOffset(), Math.min(claimedFlushed, log.endOffset())),
    },
    'committed-refill-past-hwm': {
      read: (startOffset, isolation, maxSizeBytes) =>
        isolation === 'committed'
          ? readInWholeBufferFills(log, startOffset, listenerReadBufferBytes, maxSizeBytes)
          : log.read(startOffset, isolation, maxSizeBytes),
    },
    'snapshot-above-hwm': {},
    'pre-vote-despite-leader': {},
  };
  return withOverrides(log, overridesBySabotage[sabotage]);
}

/**
 * The core's createSnapshot without its high-watermark check (everything else as the core does
 * it: below the high watermark the real method runs; above it the log is asked directly).
 */
function createSnapshotWithoutHighWatermarkCheck(
  client: SimulatedClient,
  log: RaftLog,
): SimulatedClient['createSnapshot'] {
  const original = client.createSnapshot.bind(client);
  return (snapshotId, lastContainedLogTimestamp) => {
    const highWatermark = client.highWatermark();
    if (highWatermark !== undefined && snapshotId.offset <= highWatermark) {
      return original(snapshotId, lastContainedLogTimestamp);
    }
    const raw = log.createNewSnapshot(snapshotId);
    return raw === undefined ? undefined : new RecordsSnapshotWriter(raw, lastContainedLogTimestamp);
  };
}

/**
 * Plants a sabotage that lives in a core class rather than behind a port, for the duration of a
 * run; returns the function that removes it. The simulator runs one seed at a time per process.
 */
export function plantCoreSabotage(sabotage: Sabotage | undefined): () => void {
  if (sabotage !== 'pre-vote-despite-leader') return () => {};
  const original = Object.getOwnPropertyDescriptor(FollowerState.prototype, 'canGrantVote');
  // The planted bug: a follower grants any up-to-date pre-vote, live leader or not.
  FollowerState.prototype.canGrantVote = (_candidateKey, isLogUpToDate, isPreVote) =>
    isPreVote && isLogUpToDate;
  return () => {
    if (original !== undefined) Object.defineProperty(FollowerState.prototype, 'canGrantVote', original);
  };
}

/** The node's client with `sabotage`'s planted bug, if it lives in a client method. */
export function sabotagedClient(client: SimulatedClient, log: RaftLog, sabotage: Sabotage): SimulatedClient {
  if (sabotage !== 'snapshot-above-hwm') return client;
  return withOverrides(client, { createSnapshot: createSnapshotWithoutHighWatermarkCheck(client, log) });
}
