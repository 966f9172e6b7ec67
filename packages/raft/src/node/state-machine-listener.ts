import type { LeaderAndEpoch } from '../raft-client.js';
import type { ProposalTracker } from './proposal-tracker.js';
import type {
  DecodedBatch,
  DecodedBatchReader,
  DecodedSnapshotReader,
  RaftNodeListener,
} from './raft-node-listener.js';
import type { LogPosition, StateMachine } from './raft-node-options.js';
import { ValueSnapshotReader } from './value-codec.js';

export interface StateMachineListenerOptions<T> {
  readonly stateMachine: StateMachine<T> | undefined;
  readonly proposals: ProposalTracker;
  /** Called after every callback that moved the applied position or changed the leader. */
  readonly onProgress: () => void;
}

/**
 * The listener RaftNode registers for the application's state machine, behind a
 * `DecodingListener` like any application listener (one decoding path for both): it applies
 * committed values in order, closes every reader, keeps the applied position (offset and epoch of
 * the last batch read), settles proposals, and counts what was applied since the last snapshot.
 */
export class StateMachineListener<T> implements RaftNodeListener<T> {
  private readonly stateMachine: StateMachine<T> | undefined;
  private readonly proposals: ProposalTracker;
  private readonly onProgress: () => void;
  private lastApplied: LogPosition | undefined;
  private lastAppliedTimestampMs = 0;
  private bytesSinceSnapshot = 0;
  private recordsSinceSnapshot = 0;

  constructor(options: StateMachineListenerOptions<T>) {
    this.stateMachine = options.stateMachine;
    this.proposals = options.proposals;
    this.onProgress = options.onProgress;
  }

  /** The last batch read (applied, or a control batch passed over); undefined before any. */
  applied(): LogPosition | undefined {
    return this.lastApplied;
  }

  /** The first offset not yet applied. */
  nextOffset(): number {
    return this.lastApplied === undefined ? 0 : this.lastApplied.offset + 1;
  }

  /** Append time of the last batch applied: a snapshot of it is stamped with it (Kafka's). */
  lastAppliedTimestamp(): number {
    return this.lastAppliedTimestampMs;
  }

  /** Applied since the last snapshot (or since start). */
  sinceSnapshot(): { readonly bytes: number; readonly records: number } {
    return { bytes: this.bytesSinceSnapshot, records: this.recordsSinceSnapshot };
  }

  onSnapshotTaken(): void {
    this.bytesSinceSnapshot = 0;
    this.recordsSinceSnapshot = 0;
  }

  handleCommit(reader: DecodedBatchReader<T>): void {
    try {
      for (const batch of reader) this.applyBatch(batch);
    } finally {
      reader.close();
    }
    this.onProgress();
  }

  handleLoadSnapshot(reader: DecodedSnapshotReader<T>): void {
    try {
      this.stateMachine?.restore(new ValueSnapshotReader(reader));
    } finally {
      reader.close();
    }
    this.lastApplied = { offset: reader.lastContainedLogOffset, epoch: reader.lastContainedLogEpoch };
    this.lastAppliedTimestampMs = 0;
    this.onSnapshotTaken();
    this.proposals.onSnapshotLoaded(reader.lastContainedLogOffset);
    this.onProgress();
  }

  handleLeaderChange(_leader: LeaderAndEpoch): void {
    this.onProgress();
  }

  private applyBatch(batch: DecodedBatch<T>): void {
    // Without a state machine the values are never read, so never decoded (nor counted: with
    // nothing to snapshot, nothing reads the counts).
    if (this.stateMachine !== undefined && !batch.isControl) {
      const values = batch.records;
      for (let index = 0; index < values.length; index += 1) {
        this.stateMachine.apply(values[index] as T, { offset: batch.baseOffset + index, epoch: batch.epoch });
      }
      this.bytesSinceSnapshot += batch.sizeInBytes;
      this.recordsSinceSnapshot += values.length;
    }
    this.lastApplied = { offset: batch.lastOffset, epoch: batch.epoch };
    this.lastAppliedTimestampMs = batch.appendTimestamp;
    this.proposals.onCommittedBatch(batch.baseOffset, batch.lastOffset, batch.epoch);
  }
}
