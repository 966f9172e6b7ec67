/**
 * The cluster's committed history as the harness has seen it: the first bytes ever committed at
 * each offset (whole batches, as every replica stores the leader's batches unchanged), the state
 * machine's state at each batch end, and the workload values. Every node's committed prefix and
 * every state machine is compared against it, so any divergence is caught the moment it shows.
 */

/** v2 batch header fields read straight from bytes: an oracle independent of @kraft/records. */
export interface BatchHeader {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly partitionLeaderEpoch: number;
  readonly sizeInBytes: number;
}

const LOG_OVERHEAD = 12;
const BATCH_HEADER_SIZE = 61;

/** Splits whole batches out of `bytes`; a trailing partial batch is an error here. */
export function splitBatches(bytes: Buffer): Array<{ header: BatchHeader; bytes: Buffer }> {
  const batches: Array<{ header: BatchHeader; bytes: Buffer }> = [];
  let position = 0;
  while (position < bytes.length) {
    if (bytes.length - position < BATCH_HEADER_SIZE) {
      throw new Error(`partial batch header at byte ${position} of ${bytes.length}`);
    }
    const baseOffset = Number(bytes.readBigInt64BE(position));
    const sizeInBytes = LOG_OVERHEAD + bytes.readInt32BE(position + 8);
    if (sizeInBytes < BATCH_HEADER_SIZE || position + sizeInBytes > bytes.length) {
      throw new Error(`batch at byte ${position} claims ${sizeInBytes} bytes of ${bytes.length - position}`);
    }
    const header: BatchHeader = {
      baseOffset,
      lastOffset: baseOffset + bytes.readInt32BE(position + 23),
      partitionLeaderEpoch: bytes.readInt32BE(position + 12),
      sizeInBytes,
    };
    batches.push({ header, bytes: bytes.subarray(position, position + sizeInBytes) });
    position += sizeInBytes;
  }
  return batches;
}

export interface MachineState {
  readonly count: number;
  readonly hash: number;
}

export class CommittedHistory {
  /** Bytes of the batch that starts at each offset. */
  private readonly batches = new Map<number, Buffer>();
  /** For each offset seen, the base offset of its batch (catches differently split batches). */
  private readonly batchBaseByOffset: number[] = [];
  /** State machine state after applying everything below the key offset. */
  private readonly states = new Map<number, MachineState>();
  /** Offset each workload value was committed at (first sighting). */
  private readonly valueOffsets = new Map<number, number>();
  private duplicates = 0;
  /** One past the highest offset any node showed as committed. */
  private committedEnd = 0;

  endOffset(): number {
    return this.committedEnd;
  }

  duplicatedValues(): number {
    return this.duplicates;
  }

  /**
   * Compares one committed batch from some node with history, adding it when new. Returns a
   * description of the disagreement, or undefined when it agrees.
   */
  checkBatch(header: BatchHeader, bytes: Buffer): string | undefined {
    const known = this.batches.get(header.baseOffset);
    if (known !== undefined) {
      return known.equals(bytes)
        ? undefined
        : `batch at offset ${header.baseOffset} differs from the batch first committed there`;
    }
    for (let offset = header.baseOffset; offset <= header.lastOffset; offset += 1) {
      const base = this.batchBaseByOffset[offset];
      if (base !== undefined && base !== header.baseOffset) {
        return `batch ${header.baseOffset}..${header.lastOffset} overlaps the committed batch at ${base}`;
      }
    }
    this.batches.set(header.baseOffset, Buffer.from(bytes));
    for (let offset = header.baseOffset; offset <= header.lastOffset; offset += 1) {
      this.batchBaseByOffset[offset] = header.baseOffset;
    }
    this.committedEnd = Math.max(this.committedEnd, header.lastOffset + 1);
    return undefined;
  }

  /** The committed batch starting at `offset`, if any node showed one. */
  batchAt(offset: number): Buffer | undefined {
    return this.batches.get(offset);
  }

  /** Records a workload value seen committed at `offset`; counts a value seen at two offsets. */
  recordValue(value: number, offset: number): void {
    const known = this.valueOffsets.get(value);
    if (known === undefined) this.valueOffsets.set(value, offset);
    else if (known !== offset) this.duplicates += 1;
  }

  offsetOfValue(value: number): number | undefined {
    return this.valueOffsets.get(value);
  }

  /** Compares a state machine's state at `endOffset` with the first state seen there. */
  checkState(endOffset: number, state: MachineState): string | undefined {
    const known = this.states.get(endOffset);
    if (known === undefined) {
      this.states.set(endOffset, state);
      return undefined;
    }
    return known.count === state.count && known.hash === state.hash
      ? undefined
      : `state at offset ${endOffset} is (${state.count}, ${state.hash}), first seen as (${known.count}, ${known.hash})`;
  }
}
