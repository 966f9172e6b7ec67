import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Bytes at the front of a tagged record (`--history-file`): int32 node id, int32 leader epoch,
 * int64 sequence, big-endian; the rest of the record stays zero. The triple is unique over a
 * run, so a history checker can tell every record from every other one.
 */
export const RECORD_TAG_BYTES = 16;

/** Writes the (node, epoch, sequence) tag at the front of `record`. */
export function writeRecordTag(record: Buffer, nodeId: number, epoch: number, sequence: number): void {
  record.writeInt32BE(nodeId, 0);
  record.writeInt32BE(epoch, 4);
  record.writeBigInt64BE(BigInt(sequence), 8);
}

/** Where the history lines go: one JSON object a line. */
export interface HistorySink {
  writeLine(line: string): void;
  close(): void;
}

/**
 * A history file opened for appending: a restarted node adds to what its earlier runs wrote.
 * Each line is written with one `write` to the page cache, so a kill -9 loses no completed line.
 */
export function openHistoryFile(path: string): HistorySink {
  const fd = openSync(path, 'a');
  return {
    writeLine: (line) => {
      writeSync(fd, `${line}\n`);
    },
    close: () => closeSync(fd),
  };
}

export type HistoryEventType = 'invoke' | 'ok' | 'fail' | 'info';

/**
 * One operation of the workload: `count` records of `epoch` with sequences from `firstSequence`.
 * `invoke` when handed to the raft client; `ok` when the leader saw them committed (with the
 * offset of the first); `fail` when the client refused them (they never entered the log); `info`
 * when the outcome is unknown (leadership lost or the server stopped before the commit).
 */
export interface HistoryEvent {
  readonly type: HistoryEventType;
  readonly node: number;
  readonly epoch: number;
  readonly firstSequence: number;
  readonly count: number;
  readonly firstOffset?: number;
  readonly error?: string;
  /** CLOCK_MONOTONIC in microseconds: one clock for every process of the machine, across restarts. */
  readonly monotonicUs: number;
}

/** The machine-wide monotonic clock (`process.hrtime` reads CLOCK_MONOTONIC), in microseconds. */
export function monotonicMicroseconds(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Jepsen-style invoke/ok/fail/info lines of one node's workload operations. */
export class WorkloadHistory {
  constructor(
    private readonly nodeId: number,
    private readonly sink: HistorySink,
    private readonly monotonicUs: () => number = monotonicMicroseconds,
  ) {}

  record(
    type: HistoryEventType,
    epoch: number,
    firstSequence: number,
    count: number,
    detail: { readonly firstOffset?: number; readonly error?: string } = {},
  ): void {
    const event: HistoryEvent = {
      type,
      node: this.nodeId,
      epoch,
      firstSequence,
      count,
      ...detail,
      monotonicUs: this.monotonicUs(),
    };
    this.sink.writeLine(JSON.stringify(event));
  }

  close(): void {
    this.sink.close();
  }
}
