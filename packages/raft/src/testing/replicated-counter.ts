import type { OffsetAndEpoch } from '../ports/raft-log.js';
import type { BatchReader, LeaderAndEpoch, Listener, SnapshotReader } from '../raft-client.js';
import type { CommittedHistory, MachineState } from './committed-history.js';

/** A workload value: a positive int32 in 4 bytes, unique per run. */
export function encodeValue(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value, 0);
  return bytes;
}

function decodeValue(bytes: Buffer | null | undefined): number | undefined {
  return bytes !== null && bytes !== undefined && bytes.length === 4 ? bytes.readInt32BE(0) : undefined;
}

function applyValue(state: MachineState, value: number): MachineState {
  return { count: state.count + 1, hash: Math.imul(state.hash ^ value, 0x01000193) >>> 0 };
}

const INITIAL_STATE: MachineState = { count: 0, hash: 0x811c9dc5 };

/** What the counter needs from its node and reports to the harness. */
export interface CounterHost {
  readonly nodeId: number;
  isLeader(): boolean;
  highWatermark(): number | undefined;
  createSnapshot(
    snapshotId: OffsetAndEpoch,
  ): { append(records: readonly Buffer[]): void; freeze(): number; close(): void } | undefined;
  committed(value: number, offset: number): void;
  violation(message: string): void;
  trace(line: string): void;
}

/**
 * The replicated state machine on every node (Kafka's `ReplicatedCounter`, extended to a hash of
 * the applied value sequence so two nodes agree only if they applied the same values in the same
 * order). It checks the listener contract on every callback: offsets only grow, nothing at or
 * above the high watermark, a leader never loads a snapshot. Every `snapshotEveryRecords`
 * applied values it writes a snapshot at the batch-aligned offset it has reached.
 */
export class ReplicatedCounter implements Listener {
  private state: MachineState = INITIAL_STATE;
  private nextOffset = 0;
  private lastEpoch = 0;
  private appliedSinceSnapshot = 0;
  /** The last leader this listener was told about; it is writable when that is its own node. */
  private leader: LeaderAndEpoch | undefined;
  loadedSnapshots = 0;
  createdSnapshots = 0;

  constructor(
    private readonly host: CounterHost,
    private readonly history: CommittedHistory,
    private readonly snapshotEveryRecords: number,
  ) {}

  appliedOffset(): number {
    return this.nextOffset;
  }

  currentState(): MachineState {
    return this.state;
  }

  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) {
        const highWatermark = this.host.highWatermark();
        if (highWatermark === undefined || batch.lastOffset >= highWatermark) {
          this.host.violation(
            `node ${this.host.nodeId}: listener got batch ${batch.baseOffset}..${batch.lastOffset} ` +
              `at or above the high watermark ${highWatermark}`,
          );
        }
        if (batch.baseOffset < this.nextOffset) {
          this.host.violation(
            `node ${this.host.nodeId}: listener got batch at ${batch.baseOffset} after reaching ${this.nextOffset}`,
          );
        }
        if (!batch.isControl) {
          for (const record of batch.records) {
            const value = decodeValue(record.value);
            if (value === undefined) {
              this.host.violation(`node ${this.host.nodeId}: undecodable record at offset ${record.offset}`);
              continue;
            }
            this.state = applyValue(this.state, value);
            this.appliedSinceSnapshot += 1;
            this.history.recordValue(value, record.offset);
            this.host.committed(value, record.offset);
          }
        }
        this.nextOffset = batch.lastOffset + 1;
        this.lastEpoch = batch.epoch;
        this.checkState('commit');
      }
    } finally {
      reader.close();
    }
    this.maybeSnapshot();
  }

  /** Kafka's counter becomes writable here; epochs only grow (KAFKA-15345 delays our own). */
  handleLeaderChange(leader: LeaderAndEpoch): void {
    const previous = this.leader;
    if (previous !== undefined && leader.epoch < previous.epoch) {
      this.host.violation(
        `node ${this.host.nodeId}: listener told of epoch ${leader.epoch} after epoch ${previous.epoch}`,
      );
    }
    this.leader = leader;
    this.host.trace(
      `node ${this.host.nodeId} listener leader ${leader.leaderId ?? -1} epoch ${leader.epoch}`,
    );
  }

  private isWritable(): boolean {
    return this.leader?.leaderId === this.host.nodeId && this.host.isLeader();
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    try {
      // LeaderNeverLoadSnapshot: once told it leads, the state machine is never reset under it.
      if (this.isWritable()) {
        this.host.violation(
          `node ${this.host.nodeId}: the leader loaded snapshot ${reader.snapshotId.offset}`,
        );
      }
      // The slice rule for snapshots: a snapshot holds offsets below its id, all committed here.
      const highWatermark = this.host.highWatermark();
      if (highWatermark === undefined || reader.snapshotId.offset > highWatermark) {
        this.host.violation(
          `node ${this.host.nodeId}: listener loaded snapshot ${reader.snapshotId.offset} above the high watermark ${highWatermark}`,
        );
      }
      let loaded: MachineState = INITIAL_STATE;
      for (const batch of reader) {
        if (batch.isControl) continue;
        for (const record of batch.records) {
          const bytes = record.value;
          if (bytes === null || bytes === undefined || bytes.length !== 8) {
            this.host.violation(
              `node ${this.host.nodeId}: malformed snapshot record in ${reader.snapshotId.offset}`,
            );
            continue;
          }
          loaded = { count: bytes.readUInt32BE(0), hash: bytes.readUInt32BE(4) };
        }
      }
      this.state = loaded;
      this.nextOffset = reader.snapshotId.offset;
      this.lastEpoch = reader.snapshotId.epoch;
      this.appliedSinceSnapshot = 0;
      this.loadedSnapshots += 1;
      this.host.trace(
        `node ${this.host.nodeId} loaded snapshot ${reader.snapshotId.offset}/${reader.snapshotId.epoch}`,
      );
      this.checkState('snapshot');
    } finally {
      reader.close();
    }
  }

  private checkState(source: string): void {
    const disagreement = this.history.checkState(this.nextOffset, this.state);
    if (disagreement !== undefined)
      this.host.violation(`node ${this.host.nodeId} (${source}): ${disagreement}`);
  }

  private maybeSnapshot(): void {
    if (this.appliedSinceSnapshot < this.snapshotEveryRecords || this.nextOffset === 0) return;
    const writer = this.host.createSnapshot({ offset: this.nextOffset, epoch: this.lastEpoch });
    this.appliedSinceSnapshot = 0;
    if (writer === undefined) return;
    try {
      const bytes = Buffer.alloc(8);
      bytes.writeUInt32BE(this.state.count, 0);
      bytes.writeUInt32BE(this.state.hash, 4);
      writer.append([bytes]);
      writer.freeze();
      this.createdSnapshots += 1;
      this.host.trace(`node ${this.host.nodeId} created snapshot ${this.nextOffset}/${this.lastEpoch}`);
    } finally {
      writer.close();
    }
  }
}
