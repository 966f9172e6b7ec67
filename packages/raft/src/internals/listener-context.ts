import type { LeaderAndEpoch, Listener } from '../raft-client.js';
import type { RecordsBatchReader } from './records-batch-reader.js';

/**
 * One registered listener's progress (Kafka's `ListenerContext`). `nextOffset` is the first offset
 * it has not been given (-1 before anything); `lastSent` is the reader it has not closed yet,
 * while which nothing more is sent to it.
 */
export class ListenerContext {
  readonly listener: Listener;
  nextOffset = -1;
  lastSent: RecordsBatchReader | undefined;
  lastFiredLeaderChange: LeaderAndEpoch | undefined;

  constructor(listener: Listener) {
    this.listener = listener;
  }

  onReaderClosed(reader: RecordsBatchReader): void {
    if (this.lastSent !== reader) return;
    this.lastSent = undefined;
    const lastOffset = reader.lastOffset();
    if (lastOffset !== undefined) this.nextOffset = Math.max(this.nextOffset, lastOffset + 1);
  }

  /** Fire when the epoch grew, or the same epoch learned its leader (at most twice per epoch). */
  shouldFireLeaderChange(current: LeaderAndEpoch): boolean {
    const last = this.lastFiredLeaderChange;
    if (last === undefined) return true;
    if (current.epoch > last.epoch) return true;
    return current.epoch === last.epoch && last.leaderId === undefined && current.leaderId !== undefined;
  }

  fireLeaderChange(current: LeaderAndEpoch): void {
    this.lastFiredLeaderChange = current;
    this.listener.handleLeaderChange?.(current);
  }
}
