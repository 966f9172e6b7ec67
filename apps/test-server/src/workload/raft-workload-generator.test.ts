import { KRaftError, silentLogger } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../test/support/manual-scheduler.js';
import { CommitStats } from '../stats/commit-stats.js';
import { RaftWorkloadGenerator, type WorkloadAppender } from './raft-workload-generator.js';
import { ThroughputThrottler } from './throughput-throttler.js';
import { type HistoryEvent, WorkloadHistory } from './workload-history.js';
import { WorkloadListener } from './workload-listener.js';

class RecordingAppender implements WorkloadAppender {
  nextOffset = 1; // offset 0 is the LeaderChange control record of the epoch
  readonly appends: { epoch: number; records: readonly Buffer[] }[] = [];
  failWith: KRaftError | undefined;

  scheduleAppend(epoch: number, records: readonly Buffer[]): number {
    if (this.failWith !== undefined) throw this.failWith;
    this.appends.push({ epoch, records });
    this.nextOffset += records.length;
    return this.nextOffset - 1;
  }

  recordCount(): number {
    return this.appends.reduce((sum, append) => sum + append.records.length, 0);
  }
}

function setup(
  overrides: {
    throughput?: number;
    recordSize?: number;
    maxOutstandingBytes?: number;
    latencyFromIntendedSend?: boolean;
  } = {},
) {
  const scheduler = new ManualScheduler();
  const client = new RecordingAppender();
  let appendedCalls = 0;
  const generator = new RaftWorkloadGenerator({
    client,
    localNodeId: 1,
    throughputRecordsPerSecond: overrides.throughput ?? 5000,
    recordSizeBytes: overrides.recordSize ?? 256,
    maxOutstandingBytes: overrides.maxOutstandingBytes ?? 4 * 1024 * 1024,
    scheduler,
    onAppended: () => {
      appendedCalls += 1;
    },
    logger: silentLogger,
    latencyFromIntendedSend: overrides.latencyFromIntendedSend ?? false,
  });
  return { scheduler, client, generator, appendedCalls: () => appendedCalls };
}

describe('ThroughputThrottler', () => {
  it("follows Kafka's formula: record n is due at start + n / throughput · 1000 ms", () => {
    const throttler = new ThroughputThrottler(5000, 100);
    expect(throttler.delayMs(0, 100)).toBe(0);
    expect(throttler.delayMs(5000, 100)).toBe(1000);
    expect(throttler.delayMs(10, 101)).toBe(1);
    expect(throttler.dueCount(100)).toBe(1);
    expect(throttler.dueCount(1100)).toBe(5001);
    expect(throttler.dueCount(50)).toBe(0);
    throttler.reset(2000);
    expect(throttler.delayMs(1, 2000)).toBeCloseTo(0.2);
  });
});

describe('RaftWorkloadGenerator', () => {
  it('writes nothing until this node leads, then appends at the requested rate in its epoch', () => {
    const { scheduler, client, generator, appendedCalls } = setup();
    scheduler.advance(1000);
    expect(client.appends).toEqual([]);
    generator.handleLeaderChange(1, 4);
    scheduler.advance(1000);
    expect(client.recordCount()).toBe(5001);
    expect(client.appends.every((append) => append.epoch === 4)).toBe(true);
    expect(appendedCalls()).toBe(client.appends.length);
    // Kafka's payload: zero-filled bytes, nothing stamped into them.
    const record = client.appends[0]?.records[0] as Buffer;
    expect(record).toEqual(Buffer.alloc(256));
  });

  it('stops when another node leads and restarts the throttle on a new claim', () => {
    const { scheduler, client, generator } = setup({ throughput: 1000 });
    generator.handleLeaderChange(1, 2);
    scheduler.advance(100);
    const before = client.recordCount();
    generator.handleLeaderChange(3, 3);
    expect(generator.claimedLeaderEpoch()).toBeUndefined();
    scheduler.advance(1000);
    expect(client.recordCount()).toBe(before);
    expect(scheduler.pendingTasks()).toBe(0);
    generator.handleLeaderChange(1, 5);
    scheduler.advance(10);
    expect(client.recordCount()).toBe(before + 11);
  });

  it('applies backpressure: waits while too many bytes are uncommitted, resumes on commit', () => {
    const { scheduler, client, generator } = setup({
      throughput: 100_000,
      recordSize: 1000,
      maxOutstandingBytes: 10_000,
    });
    generator.handleLeaderChange(1, 1);
    scheduler.advance(100);
    expect(client.recordCount()).toBe(10);
    expect(generator.outstandingBytes()).toBe(10_000);
    generator.handleCommitted(1, 5);
    scheduler.advance(0);
    expect(client.recordCount()).toBe(15);
    generator.handleCommitted(0, 15); // another epoch: ignored
    scheduler.advance(1);
    expect(client.recordCount()).toBe(15);
  });

  it('times a held-back append from when it was due with latencyFromIntendedSend, else from when it went', () => {
    for (const latencyFromIntendedSend of [false, true]) {
      const { scheduler, client, generator } = setup({
        throughput: 1000,
        recordSize: 1000,
        maxOutstandingBytes: 2000,
        latencyFromIntendedSend,
      });
      const startMs = scheduler.nowMs();
      generator.handleLeaderChange(1, 1);
      scheduler.advance(50); // records 0 and 1 went at once; 2.. wait for commits
      expect(client.recordCount()).toBe(2);
      generator.handleCommitted(1, 2);
      scheduler.advance(0);
      expect(client.recordCount()).toBe(4);
      // Record 2 (offset 3) was due 2 ms after the start and went 50 ms after it.
      expect(generator.takeAppendTimeMs(1, 3)).toBe(startMs + (latencyFromIntendedSend ? 2 : 50));
    }
  });

  it('retries after NotLeader and a full accumulator, and rethrows anything else', () => {
    const { scheduler, client, generator } = setup({ throughput: 1000 });
    client.failWith = new KRaftError('BATCH_ACCUMULATOR_FULL', 'full');
    generator.handleLeaderChange(1, 1);
    scheduler.advance(5);
    expect(client.recordCount()).toBe(0);
    client.failWith = new KRaftError('NOT_LEADER', 'not leader');
    scheduler.advance(5);
    client.failWith = undefined;
    scheduler.advance(20);
    expect(client.recordCount()).toBe(31);
    client.failWith = new KRaftError('RECORD_BATCH_TOO_LARGE', 'too large');
    expect(() => scheduler.advance(10)).toThrow('too large');
  });

  it('refuses a commit beyond what it appended in its own epoch', () => {
    const { scheduler, generator } = setup();
    generator.handleLeaderChange(1, 1);
    scheduler.advance(0);
    expect(() => generator.handleCommitted(1, 99)).toThrow('unexpected commit at offset 99');
  });
});

describe('WorkloadListener', () => {
  function batch(epoch: number, baseOffset: number, values: (Buffer | null)[], isControl = false) {
    const lastOffset = baseOffset + values.length - 1;
    return { epoch, baseOffset, lastOffset, isControl, records: values.map((value) => ({ value })) };
  }

  function readerOf(batches: ReturnType<typeof batch>[], onClose: () => void = () => {}) {
    return { [Symbol.iterator]: () => batches[Symbol.iterator](), close: onClose };
  }

  function listenerSetup(overrides: { throughput?: number } = {}) {
    const parts = setup(overrides);
    const stats = new CommitStats();
    const listener = new WorkloadListener({
      generator: parts.generator,
      stats,
      nowMs: () => parts.scheduler.nowMs(),
      logger: silentLogger,
    });
    return { ...parts, stats, listener };
  }

  it("a follower counts the bytes of Kafka's zero-filled records and measures no latency", () => {
    const { stats, listener } = listenerSetup();
    listener.handleLeaderChange({ leaderId: 2, epoch: 7 });
    // A Java leader's records are zeros: nothing in them is an append time.
    listener.handleCommit(
      readerOf([batch(7, 0, [null], true), batch(7, 1, [Buffer.alloc(256), Buffer.alloc(256)])]),
    );
    const snapshot = stats.snapshotAndReset(1000);
    expect(snapshot).toMatchObject({ records: 2, bytes: 512, latencyRecords: 0, maxLatencyMs: 0 });
  });

  it('the leader measures commit latency of its own appends, from their append time on its clock', () => {
    const { scheduler, client, generator, stats, listener } = listenerSetup({ throughput: 1000 });
    listener.handleLeaderChange({ leaderId: 1, epoch: 3 });
    expect(generator.claimedLeaderEpoch()).toBe(3);
    scheduler.advance(2); // appends offsets 1..3 at 0, 1 and 2 ms
    const appended = client.appends.map((append) => append.records.length);
    expect(appended.reduce((sum, count) => sum + count, 0)).toBe(3);
    scheduler.advance(8); // commits seen at 10 ms
    const records = client.appends.flatMap((append) => append.records).slice(0, 3);
    listener.handleCommit(readerOf([batch(3, 0, [null], true), batch(3, 1, records)]));
    const snapshot = stats.snapshotAndReset(1000);
    expect(snapshot.latencyRecords).toBe(3);
    expect(snapshot.maxLatencyMs).toBe(10);
    expect(snapshot.p75Ms).toBeGreaterThanOrEqual(8);
  });

  it("ignores other epochs' batches, and measures nothing once the node no longer leads", () => {
    const { scheduler, client, stats, listener } = listenerSetup({ throughput: 1000 });
    listener.handleLeaderChange({ leaderId: 1, epoch: 3 });
    scheduler.advance(1);
    const records = client.appends.flatMap((append) => append.records);
    listener.handleCommit(readerOf([batch(2, 1, records)]));
    expect(stats.snapshotAndReset(1000).records).toBe(0);
    listener.handleLeaderChange({ leaderId: 2, epoch: 3 });
    listener.handleCommit(readerOf([batch(3, 1, records)]));
    expect(stats.snapshotAndReset(1000)).toMatchObject({ records: records.length, latencyRecords: 0 });
  });

  it('closes every reader, and passes leadership changes and shutdown to the generator', () => {
    const { generator, listener } = listenerSetup();
    let closed = 0;
    listener.handleLeaderChange({ leaderId: 2, epoch: 7 });
    listener.handleCommit(readerOf([batch(7, 0, [null], true)], () => (closed += 1)));
    listener.handleLoadSnapshot({ close: () => (closed += 1) });
    expect(closed).toBe(2);
    expect(generator.claimedLeaderEpoch()).toBeUndefined();
    listener.handleLeaderChange({ leaderId: 1, epoch: 8 });
    expect(generator.claimedLeaderEpoch()).toBe(8);
    listener.beginShutdown();
    expect(generator.claimedLeaderEpoch()).toBeUndefined();
  });

  it('closes the reader even when consuming fails', () => {
    const { scheduler, listener } = listenerSetup();
    listener.handleLeaderChange({ leaderId: 1, epoch: 1 });
    scheduler.advance(0);
    let closed = false;
    const failing = {
      *[Symbol.iterator]() {
        yield batch(1, 50, [Buffer.alloc(8)]);
      },
      close: () => {
        closed = true;
      },
    };
    expect(() => listener.handleCommit(failing)).toThrow('unexpected commit');
    expect(closed).toBe(true);
  });
});

describe('RaftWorkloadGenerator with a history', () => {
  function historySetup(throughput = 1000) {
    const scheduler = new ManualScheduler();
    const client = new RecordingAppender();
    const lines: HistoryEvent[] = [];
    const sink = {
      writeLine: (line: string) => lines.push(JSON.parse(line) as HistoryEvent),
      close: () => {},
    };
    const history = new WorkloadHistory(1, sink, () => scheduler.nowMs() * 1000);
    const generator = new RaftWorkloadGenerator({
      client,
      localNodeId: 1,
      throughputRecordsPerSecond: throughput,
      recordSizeBytes: 20,
      maxOutstandingBytes: 4 * 1024 * 1024,
      scheduler,
      onAppended: () => {},
      logger: silentLogger,
      history,
    });
    return { scheduler, client, generator, lines };
  }

  function tag(record: Buffer) {
    return [record.readInt32BE(0), record.readInt32BE(4), Number(record.readBigInt64BE(8))];
  }

  it('tags every record with (node, epoch, sequence), unique across appends and epochs', () => {
    const { scheduler, client, generator } = historySetup();
    generator.handleLeaderChange(1, 3);
    scheduler.advance(10);
    generator.handleLeaderChange(1, 4);
    scheduler.advance(5);
    const tags = client.appends.flatMap((append) => append.records.map(tag));
    expect(tags.slice(0, 3)).toEqual([
      [1, 3, 0],
      [1, 3, 1],
      [1, 3, 2],
    ]);
    expect(tags.filter(([, epoch]) => epoch === 4)[0]).toEqual([1, 4, 0]);
    expect(new Set(tags.map((t) => t.join(','))).size).toBe(tags.length);
    // The rest of each record is Kafka's zeros.
    expect(client.appends[0]?.records[0]?.subarray(16)).toEqual(Buffer.alloc(4));
  });

  it('records invoke on append and ok with the first offset once the leader sees the commit', () => {
    const { scheduler, client, generator, lines } = historySetup(100_000);
    generator.handleLeaderChange(1, 2);
    scheduler.advance(0);
    scheduler.advance(1);
    expect(lines.map((line) => line.type)).toEqual(['invoke', 'invoke']);
    const secondCount = client.appends[1]?.records.length ?? 0;
    expect(client.appends[0]?.records.length).toBe(1);
    expect(secondCount).toBeGreaterThan(1);
    generator.handleCommitted(2, 1);
    expect(lines[2]).toEqual({
      type: 'ok',
      node: 1,
      epoch: 2,
      firstSequence: 0,
      count: 1,
      firstOffset: 1,
      monotonicUs: 1000,
    });
    // An operation committed only in part is not acknowledged yet.
    generator.handleCommitted(2, secondCount);
    expect(lines).toHaveLength(3);
    generator.handleCommitted(2, 1 + secondCount);
    expect(lines[3]).toMatchObject({ type: 'ok', firstSequence: 1, count: secondCount, firstOffset: 2 });
  });

  it('a refused append is a fail whose sequences are never reused; an unknown error is info', () => {
    const { scheduler, client, generator, lines } = historySetup();
    client.failWith = new KRaftError('NOT_LEADER', 'not leader');
    generator.handleLeaderChange(1, 1);
    scheduler.advance(0);
    expect(lines[1]).toMatchObject({ type: 'fail', firstSequence: 0, count: 1, error: 'NOT_LEADER' });
    client.failWith = undefined;
    scheduler.advance(10);
    expect(tag(client.appends[0]?.records[0] as Buffer)).toEqual([1, 1, 1]);
    client.failWith = new KRaftError('RECORD_BATCH_TOO_LARGE', 'too large');
    expect(() => scheduler.advance(10)).toThrow('too large');
    expect(lines.at(-1)).toMatchObject({ type: 'info', error: 'RECORD_BATCH_TOO_LARGE' });
  });

  it('what is uncommitted when leadership is lost, or at stop, is info (indeterminate)', () => {
    const { scheduler, generator, lines } = historySetup();
    generator.handleLeaderChange(1, 5);
    scheduler.advance(0);
    generator.handleLeaderChange(2, 6);
    expect(lines.map((line) => line.type)).toEqual(['invoke', 'info']);
    expect(lines[1]).toMatchObject({ epoch: 5, firstSequence: 0, firstOffset: 1 });
    generator.handleLeaderChange(1, 7);
    scheduler.advance(0);
    generator.stop();
    expect(lines.slice(2).map((line) => [line.type, line.epoch])).toEqual([
      ['invoke', 7],
      ['info', 7],
    ]);
  });
});
