import type { Batch } from '@kraft/records';
import type { BatchReader, LeaderAndEpoch, Listener, SnapshotReader } from '../raft-client.js';
import type { ProposalTracker } from './proposal-tracker.js';
import type { LogPosition, StateMachine } from './raft-node-options.js';
import type { RecordSerde } from './record-serde.js';
import { ValueSnapshotReader } from './value-codec.js';

export interface StateMachineListenerOptions<T> {
  readonly serde: RecordSerde<T>;
  readonly stateMachine: StateMachine<T> | undefined;
  readonly proposals: ProposalTracker;
  /** Called after every callback that moved the applied position or changed the leader. */
  readonly onProgress: () => void;
}

/**
 * The Kafka-style listener RaftNode registers for the application: it decodes committed values,
 * applies them in order, closes every reader, keeps the applied position (offset and epoch of the
 * last batch read), settles proposals, and counts what was applied since the last snapshot.
 */
export class StateMachineListener<T> implements Listener {
  private readonly serde: RecordSerde<T>;
  private readonly stateMachine: StateMachine<T> | undefined;
  private readonly proposals: ProposalTracker;
  private readonly onProgress: () => void;
  private lastApplied: LogPosition | undefined;
  private lastAppliedTimestampMs = 0;
  private bytesSinceSnapshot = 0;
  private recordsSinceSnapshot = 0;

  constructor(options: StateMachineListenerOptions<T>) {
    this.serde = options.serde;
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

  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) this.applyBatch(batch);
    } finally {
      reader.close();
    }
    this.onProgress();
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    try {
      this.stateMachine?.restore(new ValueSnapshotReader(this.serde, reader));
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

  private applyBatch(batch: Batch): void {
    if (!batch.isControl && this.stateMachine !== undefined) {
      for (const record of batch.records) {
        if (record.value === null) continue;
        this.stateMachine.apply(this.serde.read(record.value), { offset: record.offset, epoch: batch.epoch });
      }
    }
    if (!batch.isControl) {
      this.bytesSinceSnapshot += batch.sizeInBytes;
      this.recordsSinceSnapshot += batch.records.length;
    }
    this.lastApplied = { offset: batch.lastOffset, epoch: batch.epoch };
    this.lastAppliedTimestampMs = batch.appendTimestamp;
    this.proposals.onCommittedBatch(batch.baseOffset, batch.lastOffset, batch.epoch);
  }
}
