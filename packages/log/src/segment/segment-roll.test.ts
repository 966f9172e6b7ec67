import { MemoryRecords } from '@kraft/records';
import { afterEach, describe, expect, it } from 'vitest';
import { dataBatch, memoryFixture, TEST_NOW_MS, testConfig } from '../../test/support/log-fixtures.js';
import type { RaftLog } from '../raft-log.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A month before the wall clock: what a follower replicates after an outage. */
const MONTH_OLD_MS = TEST_NOW_MS - 30 * DAY_MS;
/** Far above what these tests write, so only time can roll a segment. */
const LARGE_SEGMENT_BYTES = 1 << 20;

describe('time-based segment roll (Kafka LogSegment.timeWaitedForRoll)', () => {
  let log: RaftLog | undefined;
  let nowMs = TEST_NOW_MS;

  afterEach(() => {
    log?.close();
    log = undefined;
    nowMs = TEST_NOW_MS;
  });

  function openLog(segmentMs?: number): RaftLog {
    const fixture = memoryFixture();
    log = fixture.open({
      config: testConfig({
        internalSegmentBytes: LARGE_SEGMENT_BYTES,
        ...(segmentMs === undefined ? {} : { segmentMs }),
      }),
      time: () => nowMs,
    });
    return log;
  }

  /** Appends one replicated batch at the log end with every record at `timestampMs`. */
  function replicate(target: RaftLog, timestampMs: number): void {
    target.appendAsFollower(
      dataBatch({ baseOffset: target.endOffset(), epoch: 1, timestamp: timestampMs }),
      1,
    );
  }

  it('keeps a follower replicating month-old batches in one segment', () => {
    const target = openLog();
    for (let index = 0; index < 200; index += 1) replicate(target, MONTH_OLD_MS + index * 1000);
    expect(target.endOffset()).toBe(200);
    expect(target.segmentBaseOffsets()).toEqual([0]);
  });

  it("rolls once the incoming batch's max timestamp is segment.ms past the first batch's", () => {
    const target = openLog(100);
    replicate(target, MONTH_OLD_MS);
    replicate(target, MONTH_OLD_MS + 60);
    // Exactly segment.ms is not past it (Kafka compares with >).
    replicate(target, MONTH_OLD_MS + 100);
    expect(target.segmentBaseOffsets()).toEqual([0]);
    replicate(target, MONTH_OLD_MS + 101);
    expect(target.segmentBaseOffsets()).toEqual([0, 3]);
    // The new segment measures from its own first batch.
    replicate(target, MONTH_OLD_MS + 150);
    expect(target.segmentBaseOffsets()).toEqual([0, 3]);
  });

  it('judges a multi-batch append by its largest timestamp and rolls before it', () => {
    const target = openLog(100);
    replicate(target, MONTH_OLD_MS);
    const young = dataBatch({ baseOffset: 1, epoch: 1, timestamp: MONTH_OLD_MS + 10 }).buffer();
    const old = dataBatch({ baseOffset: 2, epoch: 1, timestamp: MONTH_OLD_MS + 500 }).buffer();
    target.appendAsFollower(MemoryRecords.readableRecords(Buffer.concat([young, old])), 1);
    expect(target.segmentBaseOffsets()).toEqual([0, 1]);
  });

  it('does not roll on the wall clock while the first batch has a timestamp', () => {
    const target = openLog(100);
    target.appendAsLeader(dataBatch({ timestamp: TEST_NOW_MS }), 1);
    nowMs = TEST_NOW_MS + DAY_MS;
    target.appendAsLeader(dataBatch({ timestamp: TEST_NOW_MS + 50 }), 1);
    expect(target.segmentBaseOffsets()).toEqual([0]);
  });

  it('uses the wall clock since creation when the first batch has no timestamp', () => {
    const target = openLog(100);
    // -1 is Kafka's NO_TIMESTAMP.
    target.appendAsLeader(dataBatch({ timestamp: -1 }), 1);
    nowMs = TEST_NOW_MS + 100;
    target.appendAsLeader(dataBatch({ timestamp: -1 }), 1);
    expect(target.segmentBaseOffsets()).toEqual([0]);
    nowMs = TEST_NOW_MS + 101;
    target.appendAsLeader(dataBatch({ timestamp: -1 }), 1);
    expect(target.segmentBaseOffsets()).toEqual([0, 2]);
  });

  it('never rolls an empty segment by age, and a new segment starts its wall clock when it is created', () => {
    const target = openLog(100);
    nowMs = TEST_NOW_MS + DAY_MS;
    target.appendAsLeader(dataBatch({ timestamp: -1 }), 1);
    expect(target.segmentBaseOffsets()).toEqual([0]);
    target.roll();
    nowMs += 50;
    target.appendAsLeader(dataBatch({ timestamp: -1 }), 1);
    nowMs += 50;
    target.appendAsLeader(dataBatch({ timestamp: -1 }), 1);
    expect(target.segmentBaseOffsets()).toEqual([0, 1]);
  });
});
