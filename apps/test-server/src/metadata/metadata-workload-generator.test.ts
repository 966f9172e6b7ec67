import {
  MetadataDelta,
  MetadataImage,
  MetadataProvenance,
  MetadataRecordSerde,
  MetadataRecordType,
} from '@kraft/metadata';
import { KRaftError, silentLogger } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../test/support/manual-scheduler.js';
import type { WorkloadAppender } from '../workload/raft-workload-generator.js';
import { MetadataWorkloadGenerator } from './metadata-workload-generator.js';

/**
 * Raft and the loader in one: appended values are "applied" by `applyThrough`, replayed on the
 * image the generator reads, so any record that does not fit the image throws here.
 */
class AppliedLog implements WorkloadAppender {
  image = new MetadataImage({ ...MetadataImage.EMPTY, provenance: new MetadataProvenance(0, 1, -1, true) });
  readonly values: Buffer[] = [];
  failWith: KRaftError | undefined;
  private applied = 0;

  scheduleAppend(_epoch: number, records: readonly Buffer[]): number {
    if (this.failWith !== undefined) throw this.failWith;
    this.values.push(...records);
    return this.values.length; // offset 0 is the epoch's LeaderChange
  }

  applyThrough(count: number, epoch = 1): void {
    const delta = new MetadataDelta(this.image);
    for (; this.applied < Math.min(count, this.values.length); this.applied += 1) {
      delta.replay(MetadataRecordSerde.INSTANCE.read(this.values[this.applied] as Buffer));
    }
    this.image = delta.apply(new MetadataProvenance(this.applied, epoch, -1, true));
  }
}

function setup(maxOutstandingRecords = 100_000) {
  const scheduler = new ManualScheduler();
  const log = new AppliedLog();
  const generator = new MetadataWorkloadGenerator({
    client: log,
    localNodeId: 1,
    throughputRecordsPerSecond: 1000,
    appliedImage: () => log.image,
    maxOutstandingRecords,
    seed: 9,
    scheduler,
    logger: silentLogger,
  });
  return { scheduler, log, generator };
}

describe('MetadataWorkloadGenerator', () => {
  it('appends at the offered rate while it leads, records that replay on the applied image', () => {
    const { scheduler, log, generator } = setup();
    generator.handleLeaderChange(1, 1);
    for (let second = 0; second < 3; second += 1) {
      scheduler.advance(1000);
      log.applyThrough(Number.MAX_SAFE_INTEGER);
    }
    // 1000 records/s for 3 s; a topic's records are never split, so a few more.
    expect(log.values.length).toBeGreaterThanOrEqual(3000);
    expect(log.values.length).toBeLessThan(3000 + 20);
    expect(MetadataRecordSerde.INSTANCE.read(log.values[0] as Buffer).recordType).toBe(
      MetadataRecordType.FEATURE_LEVEL_RECORD,
    );
    expect(log.image.topics.topicsById.size).toBeGreaterThan(0);
  });

  it("waits until the loader's image reaches its epoch before it draws anything", () => {
    const { scheduler, log, generator } = setup();
    generator.handleLeaderChange(1, 2);
    scheduler.advance(500);
    expect(log.values).toHaveLength(0);
    log.applyThrough(0, 2);
    scheduler.advance(500);
    expect(log.values.length).toBeGreaterThan(400);
  });

  it('stops at the outstanding bound until the loader applies, and for good on stop()', () => {
    const { scheduler, log, generator } = setup(200);
    generator.handleLeaderChange(1, 1);
    scheduler.advance(2000);
    expect(log.values.length).toBeLessThanOrEqual(200 + 8);
    const before = log.values.length;
    log.applyThrough(Number.MAX_SAFE_INTEGER);
    generator.handleApplied(log.image, scheduler.nowMs());
    scheduler.advance(1);
    expect(log.values.length).toBeGreaterThan(before);
    generator.stop();
    const stopped = log.values.length;
    log.applyThrough(Number.MAX_SAFE_INTEGER);
    scheduler.advance(2000);
    expect(log.values).toHaveLength(stopped);
  });

  it('retries a refused append without losing its place, and pauses when it no longer leads', () => {
    const { scheduler, log, generator } = setup();
    generator.handleLeaderChange(1, 1);
    log.failWith = new KRaftError('BATCH_ACCUMULATOR_FULL', 'full');
    scheduler.advance(100);
    expect(log.values).toHaveLength(0);
    log.failWith = undefined;
    scheduler.advance(100);
    expect(log.values.length).toBeGreaterThanOrEqual(200);
    generator.handleLeaderChange(2, 2);
    const paused = log.values.length;
    scheduler.advance(1000);
    expect(log.values).toHaveLength(paused);
  });

  it('measures append-to-apply latency for its own appends', () => {
    const { scheduler, log, generator } = setup();
    generator.handleLeaderChange(1, 1);
    scheduler.advance(10);
    scheduler.advance(40);
    log.applyThrough(Number.MAX_SAFE_INTEGER);
    const latencies = generator.handleApplied(log.image, scheduler.nowMs());
    expect(latencies.reduce((sum, entry) => sum + entry.count, 0)).toBe(log.values.length);
    expect(Math.max(...latencies.map((entry) => entry.latencyMs))).toBeLessThanOrEqual(50);
    expect(Math.max(...latencies.map((entry) => entry.latencyMs))).toBeGreaterThan(0);
  });
});
