import { closeSync, openSync, writeSync } from 'node:fs';
import {
  type HistoryEvent,
  HistoryRecorder,
  isKvInput,
  isKvOutput,
  type KvInput,
  type KvOutput,
  readHistoryFile,
} from '@kraft/linearizability';

export type KvHistoryEvent = HistoryEvent<KvInput, KvOutput>;

/** CLOCK_MONOTONIC in microseconds: the clock of the servers' histories too, so times compare. */
export function monotonicMicroseconds(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * A recorder whose every event is one `write` of one JSON line to a file opened for append (the
 * format `@kraft/linearizability` reads): a client process killed mid-run loses nothing it
 * recorded, and what it never completed reads back as unknown outcomes.
 */
export class KvHistoryFile {
  readonly recorder: HistoryRecorder<KvInput, KvOutput>;
  private fd: number | undefined;

  constructor(path: string, options: { readonly clock?: () => number; readonly maxEvents?: number } = {}) {
    const fd = openSync(path, 'a');
    this.fd = fd;
    this.recorder = new HistoryRecorder<KvInput, KvOutput>({
      clock: options.clock ?? monotonicMicroseconds,
      ...(options.maxEvents === undefined ? {} : { maxEvents: options.maxEvents }),
      onEvent: (event) => {
        if (this.fd === undefined) throw new Error('the kv history file is closed');
        writeSync(this.fd, `${JSON.stringify(event)}\n`);
      },
    });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A run's history file is at most this: far above what the per-key bound lets the clients write. */
export const MAX_KV_HISTORY_BYTES = 256 * 1024 * 1024;

/** Reads a history back, every input and output checked against the key-value model's shapes. */
export function readKvHistory(path: string): Promise<KvHistoryEvent[]> {
  return readHistoryFile<KvInput, KvOutput>(path, {
    isInput: isKvInput,
    isOutput: isKvOutput,
    maxSizeInBytes: MAX_KV_HISTORY_BYTES,
  });
}
