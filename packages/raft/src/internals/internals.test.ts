import { IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { recordsOf } from '../../test/kit/raft-client-test-context.js';
import { BatchAccumulatorFullError } from '../errors/batch-accumulator-full-error.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { RecordBatchTooLargeError } from '../errors/record-batch-too-large-error.js';
import { SeededRandom } from '../ports/random.js';
import { ReplicaKey } from '../replica-key.js';
import { RequestManager } from '../request-manager.js';
import {
  BatchAccumulator,
  MAX_NUMBER_OF_BATCHES,
  RECORD_BATCH_OVERHEAD_BYTES,
  recordSizeInBytes,
} from './batch-accumulator.js';
import { EpochElection } from './epoch-election.js';
import { Timer } from './timer.js';

const value = (text: string) => Buffer.from(text);

describe('BatchAccumulator', () => {
  it('reserves offsets for a control batch only while nothing waits, and numbers records after it', () => {
    const accumulator = new BatchAccumulator({ epoch: 1, baseOffset: 10, lingerMs: 25 });
    expect(accumulator.isEmpty()).toBe(true);
    expect(accumulator.reserveControlOffsets(1)).toBe(10);
    expect(accumulator.append(1, [value('a')], 0, false)).toBe(11);
    expect(accumulator.isEmpty()).toBe(false);
    expect(() => accumulator.reserveControlOffsets(1)).toThrow(IllegalStateError);
    accumulator.drain(25);
    expect(accumulator.isEmpty()).toBe(true);
    expect(accumulator.reserveControlOffsets(3)).toBe(12);
    expect(accumulator.nextAppendOffset()).toBe(15);
  });

  it('assigns offsets at prepare time and returns the last one', () => {
    const accumulator = new BatchAccumulator({ epoch: 3, baseOffset: 10, lingerMs: 25 });
    expect(accumulator.append(3, [value('a'), value('b')], 0, false)).toBe(11);
    expect(accumulator.append(3, [value('c')], 0, false)).toBe(12);
  });

  it('drains after the linger time since the first record', () => {
    const accumulator = new BatchAccumulator({ epoch: 1, baseOffset: 0, lingerMs: 25 });
    accumulator.append(1, [value('a')], 100, false);
    accumulator.append(1, [value('b')], 110, false);
    expect(accumulator.needsDrain(124)).toBe(false);
    expect(accumulator.timeUntilDrainMs(110)).toBe(15);
    const batches = accumulator.drain(125);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ baseOffset: 0, lastOffset: 1, appendTimeMs: 100 });
  });

  it('computes the exact v2 batch size', () => {
    const accumulator = new BatchAccumulator({ epoch: 1, baseOffset: 0, lingerMs: 0 });
    accumulator.append(1, [value('hello'), value('world!')], 0, false);
    const [batch] = accumulator.drain(0);
    expect(batch!.sizeInBytes).toBe(recordsOf(0, 1, ['hello', 'world!']).sizeInBytes());
    expect(RECORD_BATCH_OVERHEAD_BYTES + recordSizeInBytes(0, 5) + recordSizeInBytes(1, 6)).toBe(
      batch!.sizeInBytes,
    );
  });

  it('keeps one call’s records in one batch, starting a new batch when they do not fit', () => {
    const accumulator = new BatchAccumulator({
      epoch: 1,
      baseOffset: 0,
      lingerMs: 1000,
      maxBatchSizeBytes: 200,
    });
    accumulator.append(1, [Buffer.alloc(60), Buffer.alloc(60)], 0, false);
    accumulator.append(1, [Buffer.alloc(60)], 0, false);
    const batches = accumulator.drain(0);
    expect(batches.map((batch) => [batch.baseOffset, batch.lastOffset])).toEqual([[0, 1]]);
    expect(accumulator.drain(1000).map((batch) => [batch.baseOffset, batch.lastOffset])).toEqual([[2, 2]]);
  });

  it('completes a batch that reaches the target size, so it drains without waiting out the linger', () => {
    const accumulator = new BatchAccumulator({
      epoch: 1,
      baseOffset: 0,
      lingerMs: 1000,
      targetBatchSizeBytes: 150,
    });
    accumulator.append(1, [Buffer.alloc(60)], 0, false);
    expect(accumulator.timeUntilDrainMs(0)).toBe(1000);
    accumulator.append(1, [Buffer.alloc(60)], 0, false);
    expect(accumulator.timeUntilDrainMs(0)).toBe(0);
    accumulator.append(1, [Buffer.alloc(10)], 500, false);
    expect(accumulator.drain(500).map((batch) => [batch.baseOffset, batch.lastOffset])).toEqual([[0, 1]]);
    // The record after the completed batch opens a new one under the linger clock already running
    // (as Kafka's timer): it waits at most the linger time, here less.
    expect(accumulator.timeUntilDrainMs(500)).toBe(500);
    expect(accumulator.drain(1000).map((batch) => [batch.baseOffset, batch.lastOffset])).toEqual([[2, 2]]);
  });

  it('keeps a prepared append open past the target size until it is allowed to drain', () => {
    const accumulator = new BatchAccumulator({
      epoch: 1,
      baseOffset: 0,
      lingerMs: 1000,
      targetBatchSizeBytes: 100,
    });
    accumulator.append(1, [Buffer.alloc(120)], 0, true);
    expect(accumulator.drain(0)).toEqual([]);
    accumulator.allowDrain();
    expect(accumulator.drain(1000)).toHaveLength(1);
  });

  it('rejects records that can never fit in one batch', () => {
    const accumulator = new BatchAccumulator({
      epoch: 1,
      baseOffset: 0,
      lingerMs: 0,
      maxBatchSizeBytes: 100,
    });
    expect(() => accumulator.append(1, [Buffer.alloc(100)], 0, false)).toThrow(RecordBatchTooLargeError);
  });

  it('applies backpressure once full instead of failing hard', () => {
    const accumulator = new BatchAccumulator({
      epoch: 1,
      baseOffset: 0,
      lingerMs: 1000,
      maxBatchSizeBytes: 100,
    });
    for (let index = 0; index <= MAX_NUMBER_OF_BATCHES; index += 1)
      accumulator.append(1, [Buffer.alloc(30)], 0, false);
    expect(() => accumulator.append(1, [Buffer.alloc(30)], 0, false)).toThrow(BatchAccumulatorFullError);
    accumulator.drain(0);
    expect(accumulator.append(1, [Buffer.alloc(30)], 0, false)).toBe(MAX_NUMBER_OF_BATCHES + 1);
  });

  it('bounds the bytes it holds', () => {
    const accumulator = new BatchAccumulator({
      epoch: 1,
      baseOffset: 0,
      lingerMs: 1000,
      maxBufferedBytes: 100,
    });
    accumulator.append(1, [Buffer.alloc(80)], 0, false);
    expect(() => accumulator.append(1, [Buffer.alloc(30)], 0, false)).toThrow(BatchAccumulatorFullError);
  });

  it('a prepared append does not drain until allowed', () => {
    const accumulator = new BatchAccumulator({ epoch: 1, baseOffset: 0, lingerMs: 0 });
    accumulator.append(1, [value('a')], 0, true);
    expect(accumulator.drain(10)).toEqual([]);
    accumulator.allowDrain();
    expect(accumulator.drain(10)).toHaveLength(1);
  });

  it('rejects older epochs with NotLeaderError and newer ones as a bug', () => {
    const accumulator = new BatchAccumulator({ epoch: 5, baseOffset: 0, lingerMs: 0 });
    expect(() => accumulator.append(4, [value('a')], 0, false)).toThrow(NotLeaderError);
    expect(() => accumulator.append(6, [value('a')], 0, false)).toThrow(IllegalStateError);
    expect(() => accumulator.append(5, [], 0, false)).toThrow(IllegalStateError);
  });

  it('close drops what was not drained', () => {
    const accumulator = new BatchAccumulator({ epoch: 1, baseOffset: 0, lingerMs: 100 });
    accumulator.append(1, [value('a'), value('b')], 0, false);
    expect(accumulator.close()).toBe(2);
    expect(accumulator.drain(1000)).toEqual([]);
  });
});

describe('EpochElection', () => {
  it('is won by a majority and lost when a majority can no longer grant', () => {
    const election = new EpochElection([1, 2, 3, 4, 5].map((id) => ReplicaKey.of(id)));
    election.recordVote(1, true);
    election.recordVote(2, true);
    expect(election.isVoteGranted()).toBe(false);
    election.recordVote(3, false);
    election.recordVote(4, false);
    expect(election.isVoteRejected()).toBe(false);
    election.recordVote(5, false);
    expect(election.isVoteRejected()).toBe(true);
  });

  it('refuses votes from non-voters', () => {
    const election = new EpochElection([ReplicaKey.of(1)]);
    expect(() => election.recordVote(2, true)).toThrow(IllegalStateError);
  });
});

describe('SeededRandom', () => {
  it('replays the same stream for the same seed and stays in bounds', () => {
    const first = new SeededRandom(42);
    const second = new SeededRandom(42);
    const values = Array.from({ length: 1000 }, () => first.nextInt(7));
    expect(Array.from({ length: 1000 }, () => second.nextInt(7))).toEqual(values);
    expect(values.every((value) => value >= 0 && value < 7)).toBe(true);
    expect(new Set(values).size).toBe(7);
    expect(new SeededRandom(43).nextInt(1_000_000)).not.toBe(new SeededRandom(42).nextInt(1_000_000));
  });

  it('rejects invalid bounds', () => {
    expect(() => new SeededRandom(1).nextInt(0)).toThrow(IllegalStateError);
    expect(() => new SeededRandom(1).nextInt(1.5)).toThrow(IllegalStateError);
  });
});

describe('RequestManager', () => {
  it('allows one request in flight, backs off after an error and times out', () => {
    const manager = new RequestManager({
      retryBackoffMs: 50,
      requestTimeoutMs: 1000,
      random: new SeededRandom(1),
    });
    expect(manager.isReady(1, 0)).toBe(true);
    manager.onRequestSent(1, 7, 0);
    expect(manager.isReady(1, 10)).toBe(false);
    expect(manager.isResponseExpected(1, 6)).toBe(false);
    manager.onResponseResult(1, 7, false, 10);
    expect(manager.isBackingOff(1, 59)).toBe(true);
    expect(manager.isReady(1, 60)).toBe(true);
    manager.onRequestSent(1, 8, 100);
    expect(manager.hasRequestTimedOut(1, 1100)).toBe(true);
    expect(manager.isReady(1, 1100)).toBe(true);
  });

  it('finds a ready node among candidates', () => {
    const manager = new RequestManager({
      retryBackoffMs: 50,
      requestTimeoutMs: 1000,
      random: new SeededRandom(1),
    });
    manager.onRequestSent(1, 1, 0);
    expect(manager.findReadyNode([1, 2], 0)).toBe(2);
    manager.onRequestSent(2, 2, 0);
    expect(manager.findReadyNode([1, 2], 0)).toBeUndefined();
  });
});

describe('Timer', () => {
  it('expires at its deadline and can be reset', () => {
    const timer = new Timer(100, 50);
    timer.update(149);
    expect(timer.isExpired()).toBe(false);
    expect(timer.remainingMs()).toBe(1);
    timer.update(150);
    expect(timer.isExpired()).toBe(true);
    timer.reset(200, 10);
    expect(timer.deadline()).toBe(210);
  });
});
