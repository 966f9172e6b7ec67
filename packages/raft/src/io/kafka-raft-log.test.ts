/**
 * A follower on the real log truncating on a diverging epoch (ADR 0029: the truncation reaches the
 * files only in the next flush). Whatever the follower tells its leader (the fetch offset a Fetch
 * carries, which the leader counts toward the high watermark) must survive a power loss at once.
 */
import { LogConfig } from '@kraft/log';
import { MemoryFileSystem, RecordsIterator } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import type { OutboundRequest } from '../ports/network-channel.js';
import type { RaftLog } from '../ports/raft-log.js';
import { RaftClientTestContext, recordsOf } from '../testing/raft-client-test-context.js';
import { openKafkaRaftLog } from './kafka-raft-log.js';

const CONFIG = new LogConfig({ internalSegmentBytes: 1 << 20 });

function openLog(fileSystem: MemoryFileSystem): RaftLog {
  return openKafkaRaftLog({ dir: '/metadata', fileSystem, config: CONFIG, time: () => 0 });
}

/** (offset, epoch) of every record in the log. */
function recordEpochs(log: RaftLog): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  const iterator = new RecordsIterator(log.read(log.startOffset(), 'uncommitted').records);
  for (const batch of iterator) {
    for (let offset = batch.baseOffset; offset <= batch.lastOffset; offset += 1)
      found.push([offset, batch.epoch]);
  }
  return found;
}

/** Steps of the divergence exchange; each returns the fetch offset the follower sent, if any. */
type Step = (context: RaftClientTestContext) => Promise<number | undefined>;

/** Fetch requests the follower sent and the steps have not answered yet. */
const sent: OutboundRequest[] = [];

function lastFetchOffset(
  context: RaftClientTestContext,
  epoch: number,
  fetchOffset: number,
  lastFetchedEpoch: number,
): number {
  sent.push(context.assertSentFetchRequest({ epoch, fetchOffset, lastFetchedEpoch }));
  return fetchOffset;
}

describe('a follower truncating on a diverging epoch over the real log', () => {
  it('never reports an offset above what a power loss at that moment keeps', async () => {
    const steps: Step[] = [
      async (context) => {
        await context.poll();
        return lastFetchOffset(context, 4, 4, 2);
      },
      async (context) => {
        context.deliverResponse(
          sent.shift() as OutboundRequest,
          context.fetchResponse({
            epoch: 4,
            leaderId: 1,
            highWatermark: 2,
            divergingEpoch: { epoch: 1, offset: 2 },
          }),
        );
        await context.poll();
        expect(context.log.endOffset()).toBe(2);
        return lastFetchOffset(context, 4, 2, 1);
      },
      async (context) => {
        context.deliverResponse(
          sent.shift() as OutboundRequest,
          context.fetchResponse({
            epoch: 4,
            leaderId: 1,
            highWatermark: 3,
            records: recordsOf(2, 4, ['c', 'd']),
          }),
        );
        await context.poll();
        await context.poll();
        expect(context.log.endOffset()).toBe(4);
        return lastFetchOffset(context, 4, 4, 4);
      },
    ];
    for (let crashAfter = 0; crashAfter <= steps.length; crashAfter += 1) {
      const fileSystem = new MemoryFileSystem();
      sent.length = 0;
      const context = await RaftClientTestContext.builder(0, [0, 1, 2])
        .withElectedLeader(4, 1)
        .withLogFactory(() => openLog(fileSystem))
        .appendToLog(1, ['a', 'b'])
        .appendToLog(2, ['x', 'y'])
        .build();
      // The records below the last fetch offset sent, as the log held them when it was sent.
      let reported: Array<[number, number]> = [];
      for (const step of steps.slice(0, crashAfter)) {
        const fetchOffset = await step(context);
        if (fetchOffset !== undefined) reported = recordEpochs(context.log).slice(0, fetchOffset);
      }
      fileSystem.crash();
      const reopened = openLog(fileSystem);
      expect(recordEpochs(reopened).slice(0, reported.length)).toEqual(reported);
      if (crashAfter === steps.length) expect(reported.map(([, epoch]) => epoch)).toEqual([1, 1, 4, 4]);
    }
  });
});
