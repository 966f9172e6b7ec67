import { describe, expect, it } from 'vitest';
import type { SnapshotWriter } from '../raft-client.js';
import { type RecordSerde, stringSerde } from './record-serde.js';
import { ValueSnapshotWriter } from './value-codec.js';

/** stringSerde that counts how often a value is measured. */
function countingSerde(): RecordSerde<string> & { sizings: number } {
  const serde = {
    sizings: 0,
    recordSize(value: string): number {
      serde.sizings += 1;
      return stringSerde.recordSize(value);
    },
    write: (value: string, buffer: Buffer, offset: number) => stringSerde.write(value, buffer, offset),
    read: (buffer: Buffer) => stringSerde.read(buffer),
  };
  return serde;
}

function recordingWriter(batches: string[][]): SnapshotWriter {
  return {
    snapshotId: { offset: 10, epoch: 2 },
    lastContainedLogOffset: 9,
    lastContainedLogEpoch: 2,
    isFrozen: () => false,
    append: (records) => {
      batches.push(records.map((record) => record.toString('utf8')));
    },
    freeze: () => 0,
    close: () => {},
  };
}

describe('ValueSnapshotWriter', () => {
  it('measures each value once, in append, and writes it with that size', () => {
    const serde = countingSerde();
    const batches: string[][] = [];
    const writer = new ValueSnapshotWriter(serde, recordingWriter(batches));
    writer.append(['a', 'bb']);
    writer.append(['ccc']);
    expect(writer.finish()).toBe(3);
    expect(batches).toEqual([['a', 'bb', 'ccc']]);
    expect(serde.sizings).toBe(3);
    expect(writer.lastContained).toEqual({ offset: 9, epoch: 2 });
  });
});
