// The raft core on the real log, a power loss after every step of an epoch change: what the core
// acknowledged (a follower's fetch offset, a leader's high watermark) must survive with the epochs
// of its batches, though the log writes a new epoch's checkpoint only in its next flush (ADR 0033).
import { LogConfig } from '@kraft/log';
import { MemoryFileSystem, RecordsIterator } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext, recordsOf } from '../../test/kit/raft-client-test-context.js';
import type { OutboundRequest } from '../ports/network-channel.js';
import type { RaftLog } from '../ports/raft-log.js';
import { openKafkaRaftLog } from './kafka-raft-log.js';

/** Not preallocated: a power loss keeps exactly the synced bytes. */
const CONFIG = new LogConfig({ internalSegmentBytes: 1 << 20 });

/** One step of an exchange; returns the offset the core acknowledged after it. */
type Step = (context: RaftClientTestContext) => Promise<number>;

/** [offset, epoch] of every record in the log. */
function recordEpochs(log: RaftLog): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const batch of new RecordsIterator(log.read(log.startOffset(), 'uncommitted').records)) {
    for (let offset = batch.baseOffset; offset <= batch.lastOffset; offset += 1)
      found.push([offset, batch.epoch]);
  }
  return found;
}

/**
 * Runs `steps` on a context `build` makes over a log of epoch 1 (offsets 0-1), with a power loss
 * after each prefix of them; after it,
 * the reopened log must hold every record below the last acknowledged offset as it was then, and
 * name the epoch of its last record. Returns what the full run acknowledged.
 */
async function crashAfterEveryStep(
  build: (openLog: () => RaftLog) => Promise<RaftClientTestContext>,
  steps: readonly Step[],
): Promise<Array<[number, number]>> {
  let acknowledged: Array<[number, number]> = [];
  for (let crashAfter = 0; crashAfter <= steps.length; crashAfter += 1) {
    const fileSystem = new MemoryFileSystem();
    const openLog = (): RaftLog =>
      openKafkaRaftLog({ dir: '/metadata', fileSystem, config: CONFIG, time: () => 0 });
    // Epoch 1's records, closed cleanly: its checkpoint names epoch 1, so recovery checks epochs.
    const seeded = openLog();
    seeded.initializeLeaderEpoch(1);
    seeded.appendAsLeader(recordsOf(0, 1, ['a', 'b']), 1);
    seeded.close();
    const context = await build(openLog);
    acknowledged = [];
    for (const step of steps.slice(0, crashAfter)) {
      const offset = await step(context);
      acknowledged = recordEpochs(context.log).slice(0, offset);
    }
    fileSystem.crash();
    const reopened = openLog();
    const records = recordEpochs(reopened);
    expect(records.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(reopened.lastFetchedEpoch()).toBe(records.at(-1)?.[1]);
  }
  return acknowledged;
}

describe('an epoch change on the real log, with a power loss after every step', () => {
  it('a follower appending the first batches of a new epoch never reports a fetch offset a power loss then loses', async () => {
    let fetch: OutboundRequest | undefined;
    const steps: Step[] = [
      async (context) => {
        await context.poll();
        fetch = context.assertSentFetchRequest({ epoch: 4, fetchOffset: 2, lastFetchedEpoch: 1 });
        return 2;
      },
      async (context) => {
        context.deliverResponse(
          fetch as OutboundRequest,
          context.fetchResponse({
            epoch: 4,
            leaderId: 1,
            highWatermark: 2,
            records: recordsOf(2, 4, ['c', 'd']),
          }),
        );
        await context.poll();
        await context.poll();
        // Sent only once the flush made the batch and its epoch durable.
        context.assertSentFetchRequest({ epoch: 4, fetchOffset: 4, lastFetchedEpoch: 4 });
        return 4;
      },
    ];
    const acknowledged = await crashAfterEveryStep(
      (openLog) =>
        RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(4, 1).withLogFactory(openLog).build(),
      steps,
    );
    expect(acknowledged.map(([, epoch]) => epoch)).toEqual([1, 1, 4, 4]);
  });

  it('a new leader counts its epoch-start batch toward the high watermark only once a power loss keeps it', async () => {
    const highWatermark = (context: RaftClientTestContext): number => context.client.highWatermark() ?? 0;
    const steps: Step[] = [
      async (context) => {
        await context.becomeLeader();
        return highWatermark(context);
      },
      async (context) => {
        const epoch = context.client.leaderAndEpoch().epoch;
        context.deliverVoterFetch(1, epoch, context.log.endOffset());
        await context.poll();
        return highWatermark(context);
      },
    ];
    const acknowledged = await crashAfterEveryStep(
      (openLog) =>
        RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(1).withLogFactory(openLog).build(),
      steps,
    );
    // The leader's LeaderChange batch at offset 2 opens its epoch, 2; the high watermark covers it.
    expect(acknowledged).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
    ]);
  });
});
