import { LogConfig } from '@kraft/log';
import type { MemoryFileSystem } from '@kraft/records';
import { openKafkaRaftLog } from '../../src/io/kafka-raft-log.js';
import { KafkaRaftClient } from '../../src/kafka-raft-client.js';
import type { InboundRequest, InboundResponse, NetworkChannel } from '../../src/ports/network-channel.js';
import type { QuorumStateStore } from '../../src/ports/quorum-state-store.js';
import type { OffsetAndEpoch, RaftLog } from '../../src/ports/raft-log.js';
import type { Random } from '../../src/ports/random.js';
import type { QuorumConfig } from '../../src/quorum-config.js';
import type { LeaderAndEpoch, Listener, SnapshotWriter } from '../../src/raft-client.js';
import { VoterSet } from '../../src/voter-set.js';

/** The log settings a seed picks. */
export interface SimulationLogConfig {
  readonly segmentBytes: number;
  readonly retentionMaxBytes: number;
  readonly preallocateSegments: boolean;
}

/** Raft timeouts plus the log settings a seed picks. */
export interface SimulationRaftConfig {
  readonly quorum: QuorumConfig;
  readonly log: SimulationLogConfig;
}

/** What the harness calls on a node's client. */
export interface SimulatedClient {
  poll(nowMs: number): number;
  handleRequest(request: InboundRequest, nowMs: number): void;
  handleResponse(response: InboundResponse, nowMs: number): void;
  onLogFlushed(offset: number, nowMs: number): void;
  register(listener: Listener): void;
  scheduleAppend(epoch: number, records: readonly Buffer[]): number;
  createSnapshot(snapshotId: OffsetAndEpoch, lastContainedLogTimestamp: number): SnapshotWriter | undefined;
  leaderAndEpoch(): LeaderAndEpoch;
  highWatermark(): number | undefined;
  isLeader(): boolean;
  shutdown(timeoutMs: number, nowMs: number): void;
  isShutdownComplete(): boolean;
}

/** Opens the real segmented log over the node's in-memory disk (recovering after a crash). */
export function openSimulatedLog(
  fileSystem: MemoryFileSystem,
  directory: string,
  config: SimulationLogConfig,
  time: () => number,
  sabotage: Sabotage | undefined,
): RaftLog {
  const log = openKafkaRaftLog({
    dir: directory,
    fileSystem,
    time,
    config: new LogConfig({
      internalSegmentBytes: config.segmentBytes,
      retentionMaxBytes: config.retentionMaxBytes,
      // Index files are preallocated in memory: keep them small.
      segmentIndexBytes: 4_096,
      indexIntervalBytes: 256,
      preallocate: config.preallocateSegments,
    }),
  });
  return sabotage === undefined ? log : sabotaged(log, sabotage);
}

/**
 * Deliberate bugs planted in the log under test, to prove the invariants catch them (mutation
 * testing of the simulator). Never on in the tiers; `KRAFT_SIM_SABOTAGE=<name>` or
 * `SeedOptions.sabotage` turns one on.
 * - `unsynced-flush`: `flush()` reports everything appended as durable without syncing it, so a
 *   crash loses data the leader already counted toward the high watermark.
 * - `committed-read-past-hwm`: a committed read returns uncommitted data too (KAFKA-20841's
 *   class of bug), so listeners could apply offsets at or above the high watermark.
 */
export const SABOTAGES = ['unsynced-flush', 'committed-read-past-hwm'] as const;
export type Sabotage = (typeof SABOTAGES)[number];

export function parseSabotage(name: string | undefined): Sabotage | undefined {
  if (name === undefined || name === '') return undefined;
  if (!(SABOTAGES as readonly string[]).includes(name)) {
    throw new Error(`unknown sabotage '${name}'; known: ${SABOTAGES.join(', ')}`);
  }
  return name as Sabotage;
}

function sabotaged(log: RaftLog, sabotage: Sabotage): RaftLog {
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
  };
  const overrides = overridesBySabotage[sabotage];
  return new Proxy(log, {
    get: (target, property) => {
      if (typeof property === 'string' && property in overrides) {
        return overrides[property as keyof RaftLog];
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface SimulatedClientOptions {
  readonly nodeId: number;
  readonly voterIds: readonly number[];
  readonly log: RaftLog;
  readonly store: QuorumStateStore;
  readonly channel: NetworkChannel;
  readonly random: Random;
  readonly config: SimulationRaftConfig;
  readonly nowMs: number;
}

/** A real KafkaRaftClient with static voters `voterIds`, initialized from its store and log. */
export function createSimulatedClient(options: SimulatedClientOptions): SimulatedClient {
  const client = new KafkaRaftClient({
    nodeId: options.nodeId,
    voters: VoterSet.fromIds(options.voterIds),
    log: options.log,
    network: options.channel,
    quorumStateStore: options.store,
    random: options.random,
    config: options.config.quorum,
  });
  client.initialize(options.nowMs);
  const quorum = client.quorumState();
  return Object.assign(client, { isLeader: () => quorum.isLeader() });
}
