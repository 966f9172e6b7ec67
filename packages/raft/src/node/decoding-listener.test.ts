import { LeaderChangeMessage } from '@kraft/protocol';
import { type Batch, ControlRecordType, CorruptRecordError } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import type { BatchReader, SnapshotReader } from '../raft-client.js';
import { DecodingListener } from './decoding-listener.js';
import { ProposalTracker } from './proposal-tracker.js';
import type {
  DecodedBatch,
  DecodedBatchReader,
  DecodedSnapshotReader,
  RaftNodeListener,
} from './raft-node-listener.js';
import type { LogPosition, StateMachine } from './raft-node-options.js';
import { type RecordSerde, stringSerde } from './record-serde.js';
import { StateMachineListener } from './state-machine-listener.js';

function dataBatch(baseOffset: number, epoch: number, values: readonly (string | null)[]): Batch {
  return {
    baseOffset,
    lastOffset: baseOffset + values.length - 1,
    epoch,
    appendTimestamp: 1_000 + baseOffset,
    sizeInBytes: 70 + values.length * 10,
    isControl: false,
    position: 0,
    records: values.map((value, index) => ({
      offset: baseOffset + index,
      timestamp: 1_000 + baseOffset,
      key: null,
      value: value === null ? null : Buffer.from(value, 'utf8'),
      headers: [],
    })),
    controlRecords: [],
  };
}

function leaderChangeBatch(offset: number, epoch: number): Batch {
  return {
    ...dataBatch(offset, epoch, []),
    lastOffset: offset,
    isControl: true,
    controlRecords: [
      {
        type: ControlRecordType.LEADER_CHANGE,
        message: LeaderChangeMessage.defaults({ leaderId: 1 }),
        offset,
        timestamp: 0,
      },
    ],
  };
}

/** A raw reader over `batches` that records whether it was closed. */
function rawReader(batches: readonly Batch[]): BatchReader & { closed: boolean } {
  return {
    baseOffset: batches[0]?.baseOffset ?? 0,
    closed: false,
    lastOffset: () => batches.at(-1)?.lastOffset,
    close() {
      this.closed = true;
    },
    [Symbol.iterator]: () => batches[Symbol.iterator](),
  };
}

function rawSnapshotReader(batches: readonly Batch[]): SnapshotReader & { closed: boolean } {
  return {
    snapshotId: { offset: 8, epoch: 2 },
    lastContainedLogOffset: 7,
    lastContainedLogEpoch: 2,
    closed: false,
    lastContainedLogTimestamp: () => 4_242,
    close() {
      this.closed = true;
    },
    [Symbol.iterator]: () => batches[Symbol.iterator](),
  };
}

/** stringSerde that counts its reads. */
function countingSerde(): RecordSerde<string> & { reads: number } {
  const serde = {
    reads: 0,
    recordSize: stringSerde.recordSize,
    write: stringSerde.write,
    read(source: Buffer): string {
      serde.reads += 1;
      return stringSerde.read(source);
    },
  };
  return serde;
}

/** Hands the first reader each call gets to the test, unread and open. */
function capturingListener<T>(): RaftNodeListener<T> & {
  commits: DecodedBatchReader<T>[];
  snapshots: DecodedSnapshotReader<T>[];
} {
  return {
    commits: [],
    snapshots: [],
    handleCommit(reader) {
      this.commits.push(reader);
    },
    handleLoadSnapshot(reader) {
      this.snapshots.push(reader);
    },
  };
}

function summary(batch: DecodedBatch<string>) {
  const { baseOffset, lastOffset, epoch, appendTimestamp, sizeInBytes, isControl, records } = batch;
  return { baseOffset, lastOffset, epoch, appendTimestamp, sizeInBytes, isControl, records };
}

describe('DecodingListener', () => {
  it('hands the listener each committed batch with its values decoded, its offsets and its epoch', () => {
    const listener = capturingListener<string>();
    const raw = rawReader([leaderChangeBatch(0, 1), dataBatch(1, 1, ['a', 'bb']), dataBatch(3, 2, ['c'])]);
    new DecodingListener(stringSerde, listener).handleCommit(raw);
    const reader = listener.commits[0] as DecodedBatchReader<string>;
    expect(reader.baseOffset).toBe(0);
    const batches = [...reader];
    expect(batches.map(summary)).toEqual([
      {
        baseOffset: 0,
        lastOffset: 0,
        epoch: 1,
        appendTimestamp: 1_000,
        sizeInBytes: 70,
        isControl: true,
        records: [],
      },
      {
        baseOffset: 1,
        lastOffset: 2,
        epoch: 1,
        appendTimestamp: 1_001,
        sizeInBytes: 90,
        isControl: false,
        records: ['a', 'bb'],
      },
      {
        baseOffset: 3,
        lastOffset: 3,
        epoch: 2,
        appendTimestamp: 1_003,
        sizeInBytes: 80,
        isControl: false,
        records: ['c'],
      },
    ]);
    expect(batches[0]?.controlRecords.map((record) => record.type)).toEqual([
      ControlRecordType.LEADER_CHANGE,
    ]);
    expect(batches[1]?.controlRecords).toEqual([]);
    expect(reader.lastOffset()).toBe(3);
    // Closing the decoded reader is what reports the listener's progress to the client.
    expect(raw.closed).toBe(false);
    reader.close();
    expect(raw.closed).toBe(true);
  });

  it('decodes a batch on the first read of its values, once, and not at all for offsets alone', () => {
    const serde = countingSerde();
    const listener = capturingListener<string>();
    new DecodingListener(serde, listener).handleCommit(rawReader([dataBatch(5, 3, ['x', 'y', 'z'])]));
    const [batch] = [...(listener.commits[0] as DecodedBatchReader<string>)];
    expect(batch?.lastOffset).toBe(7);
    expect(serde.reads).toBe(0);
    expect(batch?.records).toEqual(['x', 'y', 'z']);
    expect(batch?.records).toBe(batch?.records);
    expect(serde.reads).toBe(3);
  });

  it('refuses a data record without a value as corrupt instead of shifting the offsets after it', () => {
    const listener = capturingListener<string>();
    new DecodingListener(stringSerde, listener).handleCommit(rawReader([dataBatch(2, 1, ['a', null, 'c'])]));
    const [batch] = [...(listener.commits[0] as DecodedBatchReader<string>)];
    let error: unknown;
    try {
      void batch?.records;
    } catch (caught) {
      error = caught;
    }
    expect(CorruptRecordError.isCorruptRecordError(error)).toBe(true);
    expect(error).toMatchObject({ offset: 2, reason: 'a data record without a value' });
  });

  it('refuses a record whose offset is out of sequence as corrupt', () => {
    const raw = dataBatch(2, 1, ['a', 'b']);
    const gap = { ...raw, records: [raw.records[0]!, { ...raw.records[1]!, offset: 4 }] };
    const listener = capturingListener<string>();
    new DecodingListener(stringSerde, listener).handleCommit(rawReader([gap]));
    const [batch] = [...(listener.commits[0] as DecodedBatchReader<string>)];
    expect(() => batch?.records).toThrow('record 1 has offset 4, not 3');
  });

  it('hands the listener a snapshot with its values decoded and its position', () => {
    const listener = capturingListener<string>();
    const raw = rawSnapshotReader([dataBatch(0, 2, ['s1', 's2']), dataBatch(2, 2, ['s3'])]);
    new DecodingListener(stringSerde, listener).handleLoadSnapshot(raw);
    const reader = listener.snapshots[0] as DecodedSnapshotReader<string>;
    expect(reader.snapshotId).toEqual({ offset: 8, epoch: 2 });
    expect(reader.lastContainedLogOffset).toBe(7);
    expect(reader.lastContainedLogEpoch).toBe(2);
    expect(reader.lastContainedLogTimestamp()).toBe(4_242);
    expect([...reader].flatMap((batch) => batch.records)).toEqual(['s1', 's2', 's3']);
    reader.close();
    expect(raw.closed).toBe(true);
  });

  it('passes leader changes and the shutdown on, and needs neither callback', () => {
    const calls: string[] = [];
    const listener: RaftNodeListener<string> = {
      handleCommit: () => {},
      handleLoadSnapshot: () => {},
      handleLeaderChange: (leader) => calls.push(`leader ${leader.leaderId} in ${leader.epoch}`),
      beginShutdown: () => calls.push('shutdown'),
    };
    const decoding = new DecodingListener(stringSerde, listener);
    decoding.handleLeaderChange({ leaderId: 2, epoch: 5 });
    decoding.beginShutdown();
    expect(calls).toEqual(['leader 2 in 5', 'shutdown']);
    const minimal = new DecodingListener(stringSerde, capturingListener<string>());
    expect(() => {
      minimal.handleLeaderChange({ leaderId: undefined, epoch: 6 });
      minimal.beginShutdown();
    }).not.toThrow();
  });
});

/** A state machine that keeps what it applied, and throws on `apply` of `poison`. */
function listStateMachine(poison?: string): StateMachine<string> & { applied: [string, LogPosition][] } {
  return {
    applied: [],
    apply(value, position) {
      if (value === poison) throw new Error(`cannot apply ${value}`);
      this.applied.push([value, position]);
    },
    snapshot() {},
    restore(reader) {
      for (const value of reader) if (value === poison) throw new Error(`cannot restore ${value}`);
    },
  };
}

function stateMachinePath(stateMachine: StateMachine<string>) {
  const proposals = new ProposalTracker();
  const listener = new StateMachineListener({ stateMachine, proposals, onProgress: () => {} });
  return { proposals, listener, decoding: new DecodingListener(stringSerde, listener) };
}

describe('the state machine behind a DecodingListener', () => {
  it('closes the reader and stops at the batch before a value that does not decode, settling nothing of it', async () => {
    const stateMachine = listStateMachine();
    const { proposals, listener, decoding } = stateMachinePath(stateMachine);
    const pending = proposals.track(4, 1);
    let settled = false;
    void pending.outcome.then(
      () => (settled = true),
      () => (settled = true),
    );
    const raw = rawReader([dataBatch(1, 1, ['a', 'b']), dataBatch(3, 1, ['c', null])]);
    expect(() => decoding.handleCommit(raw)).toThrow('a data record without a value');
    expect(raw.closed).toBe(true);
    expect(stateMachine.applied).toEqual([
      ['a', { offset: 1, epoch: 1 }],
      ['b', { offset: 2, epoch: 1 }],
    ]);
    expect(listener.applied()).toEqual({ offset: 2, epoch: 1 });
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(proposals.size()).toBe(1);
  });

  it('closes the reader when apply throws, and the snapshot reader when restore throws', () => {
    const { decoding } = stateMachinePath(listStateMachine('bad'));
    const raw = rawReader([dataBatch(0, 1, ['ok', 'bad'])]);
    expect(() => decoding.handleCommit(raw)).toThrow('cannot apply bad');
    expect(raw.closed).toBe(true);
    const snapshot = rawSnapshotReader([dataBatch(0, 2, ['bad'])]);
    expect(() => decoding.handleLoadSnapshot(snapshot)).toThrow('cannot restore bad');
    expect(snapshot.closed).toBe(true);
  });

  it('applies each value at its offset with its batch epoch, and passes control batches over', () => {
    const stateMachine = listStateMachine();
    const { listener, decoding } = stateMachinePath(stateMachine);
    const raw = rawReader([leaderChangeBatch(0, 1), dataBatch(1, 1, ['a']), dataBatch(2, 3, ['b', 'c'])]);
    decoding.handleCommit(raw);
    expect(raw.closed).toBe(true);
    expect(stateMachine.applied).toEqual([
      ['a', { offset: 1, epoch: 1 }],
      ['b', { offset: 2, epoch: 3 }],
      ['c', { offset: 3, epoch: 3 }],
    ]);
    expect(listener.applied()).toEqual({ offset: 3, epoch: 3 });
    expect(listener.sinceSnapshot().records).toBe(3);
  });
});
