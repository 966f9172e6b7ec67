// The driver's application operations over the real core on mock ports, under vitest's fake
// timers: the loop's sleeps and the clock move only when the test says, so "polled without
// waiting for the deadline" is checked without any timed assertion.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MockLog } from '../../test/kit/mock-log.js';
import { MockNetworkChannel } from '../../test/kit/mock-network-channel.js';
import { MockQuorumStateStore } from '../../test/kit/mock-quorum-state-store.js';
import { MockableRandom } from '../../test/kit/raft-client-test-context.js';
import { LeadershipTransferError } from '../errors/leadership-transfer-error.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { KafkaRaftClient } from '../kafka-raft-client.js';
import type { Time } from '../ports/time.js';
import { VoterSet } from '../voter-set.js';
import { RaftDriver } from './raft-driver.js';

/** The fake clock of vitest's timers. */
const fakeTime: Time = { milliseconds: () => Date.now() };

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

/** Runs what is due now (immediates, settled promises) without moving the clock. */
async function runDueWork(): Promise<void> {
  for (let round = 0; round < 20; round += 1) await vi.advanceTimersByTimeAsync(0);
}

function startNode(voterIds: readonly number[]) {
  const log = new MockLog();
  const network = new MockNetworkChannel();
  const quorumStateStore = new MockQuorumStateStore();
  const client = new KafkaRaftClient({
    nodeId: 0,
    voters: VoterSet.fromIds(voterIds),
    log,
    network,
    quorumStateStore,
    random: new MockableRandom(),
    config: { appendLingerMs: 0 },
  });
  client.initialize(fakeTime.milliseconds());
  const driver = new RaftDriver({ client, log, network, quorumStateStore, time: fakeTime });
  const stopped = driver.start();
  return { driver, client, log, stopped };
}

async function stop(driver: RaftDriver, stopped: Promise<void>): Promise<void> {
  const shutdown = driver.shutdown(0);
  await vi.advanceTimersByTimeAsync(10);
  await shutdown;
  await stopped;
}

/** A lone voter, leading with its epoch start committed, its loop asleep until its next deadline. */
async function committedLoneLeader() {
  const node = startNode([0]);
  await runDueWork();
  expect(node.driver.state().role).toBe('leader');
  expect(node.client.highWatermark()).toBeDefined();
  return node;
}

describe('RaftDriver operations', () => {
  it.each(['the driver', 'the client (RaftClient API)'])(
    'polls an append made through %s at once, without waiting for the loop deadline',
    async (through) => {
      const { driver, client, log, stopped } = await committedLoneLeader();
      const startMs = Date.now();
      // Asleep: with nothing to do, the loop's next poll is up to maxSleepMs away.
      expect(client.poll(startMs)).toBeGreaterThan(startMs);
      const endOffset = log.endOffset();
      const epoch = client.leaderAndEpoch().epoch;
      const records = [Buffer.from('x')];
      const lastOffset =
        through === 'the driver'
          ? driver.scheduleAppend(epoch, records)
          : client.scheduleAppend(epoch, records);
      await runDueWork();
      expect(Date.now()).toBe(startMs);
      expect(log.endOffset()).toBe(endOffset + 1);
      expect(client.highWatermark()).toBe(lastOffset + 1);
      await stop(driver, stopped);
    },
  );

  it('resolves a read barrier with the high watermark of a lone voter', async () => {
    const { driver, client, stopped } = await committedLoneLeader();
    const read = driver.readIndex();
    await runDueWork();
    await expect(read).resolves.toBe(client.highWatermark());
    await stop(driver, stopped);
  });

  it('rejects a read barrier on a node that does not lead', async () => {
    const { driver, stopped } = startNode([0, 1, 2]);
    await runDueWork();
    await expect(driver.readIndex()).rejects.toBeInstanceOf(NotLeaderError);
    await expect(driver.transferLeadership(1)).rejects.toBeInstanceOf(NotLeaderError);
    await stop(driver, stopped);
  });

  it('resolves a transfer to the leader itself at once, and rejects one to a non-voter', async () => {
    const { driver, stopped } = await committedLoneLeader();
    const toSelf = driver.transferLeadership(0);
    await runDueWork();
    await expect(toSelf).resolves.toBeUndefined();
    const error = await driver.transferLeadership(7).catch((rejection: unknown) => rejection);
    expect(error).toBeInstanceOf(LeadershipTransferError);
    expect((error as LeadershipTransferError).reason).toBe('not-a-voter');
    await stop(driver, stopped);
  });
});
