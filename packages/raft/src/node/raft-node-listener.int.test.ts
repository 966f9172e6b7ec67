// Listeners registered on RaftNodes (three in one process on 127.0.0.1 port 0): `listener` sees
// decoded values with their offsets and epochs, only once committed; `rawListener` sees the bytes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Batch } from '@kraft/records';
import { afterEach, describe, expect, it } from 'vitest';
import { IndeterminateError } from '../errors/indeterminate-error.js';
import type { BatchReader, Listener, SnapshotReader } from '../raft-client.js';
import type { CommittedPosition } from './proposal-tracker.js';
import { type PutCommand, TestCluster, type TestMember } from './raft-node-cluster.test-support.js';
import type { DecodedBatchReader, DecodedSnapshotReader, RaftNodeListener } from './raft-node-listener.js';
import type { LogPosition } from './raft-node-options.js';
import { jsonSerde } from './record-serde.js';

interface SeenValue {
  readonly value: PutCommand;
  readonly offset: number;
  readonly epoch: number;
}

/**
 * Keeps every value a RaftNode listener is given, and every batch it was given at or above the
 * high watermark its node reported during the call (the high watermark only grows, so the one
 * read during the call is at least the one the reader was made with).
 */
class RecordingListener implements RaftNodeListener<PutCommand> {
  readonly values: SeenValue[] = [];
  readonly snapshots: { readonly lastContained: LogPosition; readonly values: PutCommand[] }[] = [];
  readonly uncommittedBatches: { readonly lastOffset: number; readonly highWatermark: number | undefined }[] =
    [];
  private readonly highWatermark: () => number | undefined;

  constructor(highWatermark: () => number | undefined) {
    this.highWatermark = highWatermark;
  }

  handleCommit(reader: DecodedBatchReader<PutCommand>): void {
    const highWatermark = this.highWatermark();
    try {
      for (const batch of reader) {
        if (highWatermark === undefined || batch.lastOffset >= highWatermark) {
          this.uncommittedBatches.push({ lastOffset: batch.lastOffset, highWatermark });
        }
        batch.records.forEach((value, index) => {
          this.values.push({ value, offset: batch.baseOffset + index, epoch: batch.epoch });
        });
      }
    } finally {
      reader.close();
    }
  }

  handleLoadSnapshot(reader: DecodedSnapshotReader<PutCommand>): void {
    try {
      const values = [...reader].flatMap((batch) => batch.records);
      const lastContained = { offset: reader.lastContainedLogOffset, epoch: reader.lastContainedLogEpoch };
      this.snapshots.push({ lastContained, values });
    } finally {
      reader.close();
    }
  }

  valuesOf(key: string): SeenValue[] {
    return this.values.filter((seen) => seen.value.key === key);
  }
}

/** The raw client's batches, kept as they come: serialized bytes. */
class RawRecordingListener implements Listener {
  readonly batches: Batch[] = [];

  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) this.batches.push(batch);
    } finally {
      reader.close();
    }
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    reader.close();
  }
}

const listeners = new Map<number, RecordingListener>();
const rawListeners = new Map<number, RawRecordingListener>();
let cluster = new TestCluster();

afterEach(async () => {
  await cluster.closeAll();
  listeners.clear();
  rawListeners.clear();
});

/** Three nodes, each with a recording listener (a new one on every open) and a raw one. */
function startCluster(config: Parameters<TestCluster['start']>[1] = {}): Promise<void> {
  const testCluster: TestCluster = new TestCluster((nodeId) => {
    const highWatermark = (): number | undefined =>
      testCluster.members.find((member) => member.nodeId === nodeId)?.node.status().highWatermark;
    const listener = new RecordingListener(highWatermark);
    const rawListener = new RawRecordingListener();
    listeners.set(nodeId, listener);
    rawListeners.set(nodeId, rawListener);
    return { listener, rawListener };
  });
  cluster = testCluster;
  return testCluster.start(3, config);
}

function listenerOf(member: TestMember): RecordingListener {
  return listeners.get(member.nodeId) as RecordingListener;
}

/**
 * Checked on nodes opened once: a restarted node's listener is called before `member.node` names
 * the new node, so its high-watermark reading would be the closed node's.
 */
function expectOnlyCommittedBatches(members: readonly TestMember[]): void {
  for (const member of members) expect(listenerOf(member).uncommittedBatches).toEqual([]);
}

function snapshotCount(directory: string): number {
  return readdirSync(join(directory, '__cluster_metadata-0')).filter((name) => name.endsWith('.checkpoint'))
    .length;
}

describe('a listener registered on RaftNode', () => {
  it('receives every committed value decoded, with its offset and the epoch it was written in', async () => {
    await startCluster();
    const leader = await cluster.leader();
    const first = await leader.node.propose([{ key: 'a', value: '1' }]);
    const second = await leader.node.propose([
      { key: 'b', value: '2' },
      { key: 'c', value: '3' },
    ]);
    const expected: SeenValue[] = [
      { value: { key: 'a', value: '1' }, ...first },
      { value: { key: 'b', value: '2' }, offset: second.offset - 1, epoch: second.epoch },
      { value: { key: 'c', value: '3' }, ...second },
    ];
    for (const member of cluster.members) {
      await expect.poll(() => listenerOf(member).values, { timeout: 10_000 }).toEqual(expected);
      // The state machine, behind the same decoding, applied the same values at the same positions.
      expect(member.stateMachine.applied).toEqual(expected.map(({ offset, epoch }) => ({ offset, epoch })));
    }
    expectOnlyCommittedBatches(cluster.members);
  });

  it('never receives a value the leader appended but no majority acknowledged, until it commits', async () => {
    // Check-quorum resigns a leader after 1.5 × fetchTimeoutMs without followers: keep it leading.
    await startCluster({ fetchTimeoutMs: 10_000 });
    const leader = await cluster.leader();
    const committed = await leader.node.propose([{ key: 'acknowledged', value: 'yes' }]);
    const followers = cluster.members.filter((member) => member !== leader);
    for (const follower of followers) await follower.node.close();

    const error = await leader.node
      .propose([{ key: 'pending', value: 'no majority' }], { timeoutMs: 300 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(IndeterminateError);
    // In the leader's log, at the offset after the acknowledged value, but not below the high
    // watermark: the listener has been polled since and was not given it.
    await expect
      .poll(() => leader.node.status().logEndOffset, { timeout: 10_000 })
      .toBe(committed.offset + 2);
    expect(leader.node.status().highWatermark).toBe(committed.offset + 1);
    expect(listenerOf(leader).valuesOf('pending')).toEqual([]);

    // One follower back is a majority again: the value commits and only now reaches the listener.
    const [returning] = followers as [TestMember];
    await cluster.restart(returning);
    await expect.poll(() => listenerOf(leader).valuesOf('pending').length, { timeout: 15_000 }).toBe(1);
    const [pending] = listenerOf(leader).valuesOf('pending');
    expect(pending?.offset).toBe(committed.offset + 1);
    expect(leader.node.status().highWatermark).toBeGreaterThan(pending?.offset as number);
    expectOnlyCommittedBatches([leader]);
  });

  it('loads a snapshot with decoded values on restart, then receives the values after it', async () => {
    await startCluster({ snapshotEveryRecords: 3 });
    const leader = await cluster.leader();
    for (let index = 0; index < 5; index += 1) {
      await leader.node.propose([{ key: `k${index % 2}`, value: `v${index}` }]);
    }
    const follower = cluster.members.find((member) => member !== leader) as TestMember;
    await expect.poll(() => listenerOf(follower).values.length, { timeout: 10_000 }).toBe(5);
    // The follower's state machine snapshots every 3 values: it has one by the 5th.
    await expect.poll(() => snapshotCount(follower.directory), { timeout: 10_000 }).toBeGreaterThan(0);
    await cluster.restart(follower, { snapshotEveryRecords: 3 });
    const last: CommittedPosition = await leader.node.propose([{ key: 'after', value: 'restart' }]);
    const restarted = listenerOf(follower);
    await expect.poll(() => restarted.valuesOf('after').length, { timeout: 15_000 }).toBe(1);
    expect(restarted.snapshots).toHaveLength(1);
    const [snapshot] = restarted.snapshots;
    // The snapshot holds the map's entries as the state machine wrote them, as PutCommands.
    expect(new Set(snapshot?.values.map((value) => value.key))).toEqual(new Set(['k0', 'k1']));
    // After it, only what followed the snapshot, in order, ending with the new value.
    const offsets = restarted.values.map((seen) => seen.offset);
    expect(offsets.every((offset) => offset > (snapshot?.lastContained.offset as number))).toBe(true);
    expect(offsets).toEqual([...offsets].sort((left, right) => left - right));
    expect(restarted.values.at(-1)).toEqual({ value: { key: 'after', value: 'restart' }, ...last });
  });

  it('rawListener receives the same committed batches as serialized bytes', async () => {
    await startCluster();
    const leader = await cluster.leader();
    const position = await leader.node.propose([{ key: 'raw', value: 'bytes' }]);
    const raw = rawListeners.get(leader.nodeId) as RawRecordingListener;
    await expect
      .poll(() => raw.batches.some((batch) => batch.lastOffset === position.offset), { timeout: 10_000 })
      .toBe(true);
    const batch = raw.batches.find((candidate) => candidate.lastOffset === position.offset) as Batch;
    const value = batch.records[0]?.value as Buffer;
    expect(Buffer.isBuffer(value)).toBe(true);
    expect(jsonSerde<PutCommand>().read(value)).toEqual({ key: 'raw', value: 'bytes' });
  });
});
