import { KRaftError, silentLogger } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { CommitStats } from '../stats/commit-stats.js';
import { readAppendTimeMs } from './performance-record.js';
import { RaftWorkloadGenerator, type WorkloadAppender } from './raft-workload-generator.js';
import { ThroughputThrottler } from './throughput-throttler.js';
import { WorkloadListener } from './workload-listener.js';
import type { WorkloadScheduler } from './workload-scheduler.js';

/** A manual clock and timer queue: `advance` runs every task due by the new time, in order. */
class ManualScheduler implements WorkloadScheduler {
  private now = 0;
  private nextId = 0;
  private readonly tasks = new Map<number, { atMs: number; task: () => void }>();

  nowMs(): number {
    return this.now;
  }

  schedule(delayMs: number, task: () => void) {
    const id = this.nextId++;
    this.tasks.set(id, { atMs: this.now + Math.max(0, delayMs), task });
    return { cancel: () => this.tasks.delete(id) };
  }

  advance(byMs: number): void {
    const targetMs = this.now + byMs;
    for (;;) {
      const next = [...this.tasks.entries()]
        .filter(([, entry]) => entry.atMs <= targetMs)
        .sort((left, right) => left[1].atMs - right[1].atMs || left[0] - right[0])[0];
      if (next === undefined) break;
      this.tasks.delete(next[0]);
      this.now = Math.max(this.now, next[1].atMs);
      next[1].task();
    }
    this.now = targetMs;
  }

  pendingTasks(): number {
    return this.tasks.size;
  }
}

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

function setup(overrides: { throughput?: number; recordSize?: number; maxOutstandingBytes?: number } = {}) {
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
    wallClockMs: () => 1_700_000_000_000 + scheduler.nowMs(),
    onAppended: () => {
      appendedCalls += 1;
    },
    logger: silentLogger,
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
    const record = client.appends[0]?.records[0] as Buffer;
    expect(record.length).toBe(256);
    expect(readAppendTimeMs(record)).toBe(1_700_000_001_000);
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
  function batch(epoch: number, lastOffset: number, values: (Buffer | null)[], isControl = false) {
    return { epoch, lastOffset, isControl, records: values.map((value) => ({ value })) };
  }

  it("records latency and bytes for the current leader's epoch only, and closes every reader", () => {
    const { scheduler, generator } = setup();
    const stats = new CommitStats();
    const listener = new WorkloadListener({
      generator,
      stats,
      wallClockMs: () => 10_000,
      logger: silentLogger,
    });
    const stamped = Buffer.alloc(16);
    stamped.writeDoubleLE(9_990, 0);
    let closed = 0;
    const reader = (batches: ReturnType<typeof batch>[]) => ({
      [Symbol.iterator]: () => batches[Symbol.iterator](),
      close: () => {
        closed += 1;
      },
    });
    listener.handleLeaderChange({ leaderId: 2, epoch: 7 });
    listener.handleCommit(
      reader([
        batch(7, 0, [null], true),
        batch(6, 1, [stamped]),
        batch(7, 3, [stamped, stamped]),
        batch(7, 4, [Buffer.alloc(3)]),
      ]),
    );
    listener.handleLoadSnapshot({ close: () => (closed += 1) });
    const snapshot = stats.snapshotAndReset(1000);
    expect(snapshot.records).toBe(3);
    expect(snapshot.bytes).toBe(35);
    expect(snapshot.maxLatencyMs).toBe(10);
    expect(closed).toBe(2);
    scheduler.advance(10);
    expect(generator.claimedLeaderEpoch()).toBeUndefined();
    listener.handleLeaderChange({ leaderId: 1, epoch: 8 });
    expect(generator.claimedLeaderEpoch()).toBe(8);
    listener.beginShutdown();
    expect(generator.claimedLeaderEpoch()).toBeUndefined();
  });

  it('closes the reader even when consuming fails', () => {
    const { scheduler, generator } = setup();
    const listener = new WorkloadListener({
      generator,
      stats: new CommitStats(),
      wallClockMs: () => 0,
      logger: silentLogger,
    });
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
