// An embedder's test of its own state machine, written against the public surface only: the
// README's "Testing your state machine" section shows this file's state machine and run.
import type { BatchReader, Listener, SnapshotReader } from '@kraft/raft';
import { SimulatedCluster, type SimulatedNodeContext } from '@kraft/raft/testing';
import { describe, expect, it } from 'vitest';

/** The application: a replicated sum of int32 increments, snapshotted every few batches. */
class Counter implements Listener {
  total = 0;
  readonly applied: number[] = [];
  private nextOffset = 0;
  private batchesSinceSnapshot = 0;

  constructor(private readonly node: SimulatedNodeContext) {}

  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) {
        if (!batch.isControl) {
          for (const record of batch.records) {
            const value = record.value?.readInt32BE(0) ?? 0;
            this.total += value;
            this.applied.push(value);
          }
        }
        this.nextOffset = batch.lastOffset + 1;
        this.batchesSinceSnapshot += 1;
        if (this.batchesSinceSnapshot >= 8) this.snapshot({ offset: this.nextOffset, epoch: batch.epoch });
      }
    } finally {
      reader.close();
    }
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    try {
      for (const batch of reader) {
        const state = batch.isControl ? undefined : batch.records[0]?.value;
        if (state) {
          this.total = state.readDoubleBE(0);
          this.applied.length = 0;
          for (let at = 8; at < state.length; at += 4) this.applied.push(state.readInt32BE(at));
        }
      }
      this.nextOffset = reader.snapshotId.offset;
    } finally {
      reader.close();
    }
  }

  appliedOffset(): number {
    return this.nextOffset;
  }

  private snapshot(snapshotId: { offset: number; epoch: number }): void {
    const writer = this.node.createSnapshot(snapshotId, this.node.nowMs());
    if (writer === undefined) return;
    const state = Buffer.alloc(8 + 4 * this.applied.length);
    state.writeDoubleBE(this.total, 0);
    for (const [index, value] of this.applied.entries()) state.writeInt32BE(value, 8 + 4 * index);
    writer.append([state]);
    writer.freeze();
    writer.close();
    this.batchesSinceSnapshot = 0;
  }
}

function increment(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value, 0);
  return bytes;
}

/** Proposes `value` and runs until its leader applied it; true once acknowledged. */
async function proposeAndAwait(cluster: SimulatedCluster<Counter>, value: number): Promise<boolean> {
  const proposal = cluster.proposeThroughLeader([increment(value)]);
  if (proposal === undefined) return false;
  return cluster.runUntil(
    () => (cluster.stateMachine(proposal.leaderId)?.appliedOffset() ?? 0) > proposal.lastOffset,
    2_000,
  );
}

async function runCounterUnderFaults(seed: number): Promise<{ acknowledged: number[]; nodes: Counter[] }> {
  const cluster = new SimulatedCluster({
    seed,
    voters: 3,
    stateMachine: (node) => new Counter(node),
    log: { segmentBytes: 1_024, retentionMaxBytes: 2_048 },
  });
  cluster.start();
  const acknowledged: number[] = [];
  let nextValue = 1;
  const proposeMany = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index += 1) {
      const value = nextValue++;
      if (await proposeAndAwait(cluster, value)) acknowledged.push(value);
      else await cluster.runFor(100);
    }
  };

  expect(await cluster.runUntil(() => cluster.leaderId() !== undefined, 10_000)).toBe(true);
  await proposeMany(20);

  // The leader is cut off; the other two elect a new leader and keep committing.
  const oldLeader = cluster.leaderId() as number;
  const others = cluster.nodeIds().filter((nodeId) => nodeId !== oldLeader);
  cluster.partition([oldLeader], others);
  expect(await cluster.runUntil(() => others.includes(cluster.leaderId() ?? -1), 10_000)).toBe(true);
  await proposeMany(20);

  // Healed, then a follower loses power (its unsynced bytes are gone) and comes back.
  cluster.heal();
  const follower = cluster.nodeIds().find((nodeId) => nodeId !== cluster.leaderId()) as number;
  cluster.crash(follower);
  await proposeMany(20);
  cluster.restart(follower);
  await proposeMany(10);

  const converged = (): boolean => {
    const leaderId = cluster.leaderId();
    const end = leaderId === undefined ? undefined : cluster.highWatermark(leaderId);
    return (
      end !== undefined &&
      cluster.nodeIds().every((nodeId) => cluster.stateMachine(nodeId)?.appliedOffset() === end)
    );
  };
  expect(await cluster.runUntil(converged, 20_000)).toBe(true);
  expect(cluster.violations()).toEqual([]);
  const nodes = cluster.nodeIds().map((nodeId) => cluster.stateMachine(nodeId) as Counter);
  return { acknowledged, nodes };
}

describe('a replicated counter on @kraft/raft/testing', () => {
  it.each([1, 2, 3])(
    'keeps every acknowledged increment through a partition and a crash (seed %i)',
    async (seed) => {
      const { acknowledged, nodes } = await runCounterUnderFaults(seed);
      expect(acknowledged.length).toBeGreaterThan(40);
      const [first, ...rest] = nodes as [Counter, ...Counter[]];
      for (const node of rest) {
        expect(node.total).toBe(first.total);
        expect(node.applied).toEqual(first.applied);
      }
      for (const value of acknowledged)
        expect(first.applied.filter((applied) => applied === value)).toHaveLength(1);
      expect(first.total).toBe(first.applied.reduce((sum, value) => sum + value, 0));
    },
  );

  it('replays a seed exactly', async () => {
    const once = await runCounterUnderFaults(7);
    const again = await runCounterUnderFaults(7);
    expect(again.acknowledged).toEqual(once.acknowledged);
    expect(again.nodes.map((node) => node.applied)).toEqual(once.nodes.map((node) => node.applied));
  });
});
