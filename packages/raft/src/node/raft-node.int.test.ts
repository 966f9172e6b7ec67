// Three RaftNodes in one process on 127.0.0.1 port 0, each on its own temporary directory.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LogDirectoryLockedError } from '@kraft/log';
import { InvalidConfigurationError } from '@kraft/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { IndeterminateError } from '../errors/indeterminate-error.js';
import { LeadershipTransferError } from '../errors/leadership-transfer-error.js';
import { LogDirectoryError } from '../errors/log-directory-error.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { ProposalRejectedError } from '../errors/proposal-rejected-error.js';
import { RaftNodeClosedError } from '../errors/raft-node-closed-error.js';
import { RaftNode } from './raft-node.js';
import { MapStateMachine, recordingLogger, TestCluster } from './raft-node-cluster.test-support.js';

let cluster = new TestCluster();

afterEach(async () => {
  await cluster.closeAll();
  cluster = new TestCluster();
});

function entriesOf(member: { stateMachine: { entries: Map<string, string> } }): [string, string][] {
  return [...member.stateMachine.entries];
}

describe('RaftNode with three voters', () => {
  it('elects a leader, commits proposals and every state machine applies the same values', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    const first = await leader.node.propose([{ key: 'a', value: '1' }]);
    const second = await leader.node.propose([
      { key: 'b', value: '2' },
      { key: 'a', value: '3' },
    ]);
    expect(second.offset).toBeGreaterThan(first.offset);
    expect(second.epoch).toBe(leader.node.status().epoch);
    // Resolved means committed and applied on the leader.
    expect(entriesOf(leader)).toEqual([
      ['a', '3'],
      ['b', '2'],
    ]);
    await expect
      .poll(() => cluster.members.map(entriesOf), { timeout: 10_000 })
      .toEqual(
        cluster.members.map(() => [
          ['a', '3'],
          ['b', '2'],
        ]),
      );
    for (const member of cluster.members) {
      expect(member.stateMachine.applied.map((position) => position.offset)).toEqual([
        first.offset,
        second.offset - 1,
        second.offset,
      ]);
    }
  });

  it('refuses a proposal on a follower with NotLeaderError naming the leader and its endpoint', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    const follower = cluster.members.find((member) => member !== leader)!;
    await expect.poll(() => follower.node.status().leaderId, { timeout: 10_000 }).toBe(leader.nodeId);
    const error = await follower.node.propose([{ key: 'x', value: 'y' }]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotLeaderError);
    expect(error).toMatchObject({
      leaderId: leader.nodeId,
      leaderEndpoint: { host: '127.0.0.1', port: leader.node.endpoints()[0]?.port },
    });
  });

  it('reports status with the voters and their lag on the leader', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    const committed = await leader.node.propose([{ key: 'k', value: 'v' }]);
    await expect
      .poll(() => leader.node.status().voters.map((voter) => voter.lag), { timeout: 10_000 })
      .toEqual([0, 0, 0]);
    const status = leader.node.status();
    expect(status).toMatchObject({
      nodeId: leader.nodeId,
      phase: 'running',
      role: 'leader',
      leaderId: leader.nodeId,
      applied: { offset: committed.offset, epoch: committed.epoch },
    });
    expect(status.highWatermark).toBeGreaterThan(committed.offset);
    expect(status.voters.map((voter) => voter.nodeId)).toEqual([1, 2, 3]);
    expect(status.voters.map((voter) => voter.logEndOffset)).toEqual([
      status.logEndOffset,
      status.logEndOffset,
      status.logEndOffset,
    ]);
  });

  it('ends a proposal in flight on a leader that closes as indeterminate or settled, never silently', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    await leader.node.propose([{ key: 'before', value: 'close' }]);
    const inFlight = leader.node.propose([{ key: 'during', value: 'close' }]);
    const outcome = inFlight.then(
      (position) => ({ kind: 'committed' as const, position }),
      (error: unknown) => ({ kind: 'failed' as const, error }),
    );
    await leader.node.close();
    const settled = await outcome;
    if (settled.kind === 'failed') {
      expect(
        settled.error instanceof IndeterminateError || settled.error instanceof ProposalRejectedError,
      ).toBe(true);
    }
    // A proposal after close is refused outright: nothing was appended.
    await expect(leader.node.propose([{ key: 'after', value: 'close' }])).rejects.toBeInstanceOf(
      RaftNodeClosedError,
    );
    // The remaining two elect a new leader that keeps every committed value.
    const remaining = cluster.members.filter((member) => member !== leader);
    const next = await waitForLeaderAmong(remaining);
    await next.node.propose([{ key: 'after-failover', value: 'ok' }]);
    expect(next.stateMachine.entries.get('before')).toBe('close');
    if (settled.kind === 'committed') expect(next.stateMachine.entries.get('during')).toBe('close');
  });

  it('restarts from its directory, restoring the state machine from its snapshot and the log', async () => {
    // A snapshot after every 3 values, so the restart reads a snapshot and then log batches.
    await cluster.start(3, { snapshotEveryRecords: 3 });
    const leader = await cluster.leader();
    for (let index = 0; index < 7; index += 1) {
      await leader.node.propose([{ key: `k${index % 4}`, value: `v${index}` }]);
    }
    const expected = entriesOf(leader);
    const follower = cluster.members.find((member) => member !== leader)!;
    await expect.poll(() => entriesOf(follower), { timeout: 10_000 }).toEqual(expected);
    await expect.poll(() => snapshotCount(follower.directory), { timeout: 10_000 }).toBeGreaterThan(0);
    const restored = await cluster.restart(follower, { snapshotEveryRecords: 3 });
    await expect.poll(() => [...restored.entries], { timeout: 10_000 }).toEqual(expected);
    expect(restored.restores).toBe(1);
    // It applied only what followed the snapshot, not the whole log again.
    expect(restored.applied.length).toBeLessThan(7);
  });
});

describe('RaftNode log retention', () => {
  it('a follower down while the log start passed it catches up from the leader’s snapshot', async () => {
    // Small segments and retention, frequent snapshots and cleaning: the leader deletes what its
    // snapshots cover, so the returning follower must fetch a snapshot, not the log.
    cluster = new TestCluster(() => ({ log: { internalSegmentBytes: 2048, retentionMaxBytes: 4096 } }));
    const config = { snapshotEveryRecords: 20, logCleanIntervalMs: 50 };
    await cluster.start(3, config);
    const leader = await cluster.leader();
    const follower = cluster.members.find((member) => member !== leader)!;
    await follower.node.close();
    for (let index = 0; index < 200; index += 1) {
      await leader.node.propose([{ key: `k${index % 5}`, value: `value-${index}` }]);
    }
    await expect
      .poll(() => leader.node.status().logStartOffset ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(100);
    const restored = await cluster.restart(follower, config);
    await expect.poll(() => [...restored.entries], { timeout: 15_000 }).toEqual(entriesOf(leader));
    expect(restored.restores).toBe(1);
    expect(restored.applied.length).toBeLessThan(100);
  });

  it('refuses a log setting out of range before it locks the directory', async () => {
    const directory = cluster.newDirectory();
    const options = cluster.nodeOptions(1, directory, {});
    await expect(RaftNode.bind({ ...options, log: { segmentBytes: 1024 } })).rejects.toThrow(
      /metadata.log.segment.bytes must be at least/,
    );
    const node = await RaftNode.open({
      ...options,
      log: { segmentBytes: 8 * 1024 * 1024 },
      voters: '1@127.0.0.1:9',
    });
    await node.close();
  });
});

describe('RaftNode reads and leadership', () => {
  it('readIndex on the leader returns once its state machine holds every acknowledged write', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    const committed = await leader.node.propose([{ key: 'read', value: 'me' }]);
    const readOffset = await leader.node.readIndex();
    expect(readOffset).toBeGreaterThan(committed.offset);
    expect(leader.node.status().applied!.offset + 1).toBeGreaterThanOrEqual(readOffset);
    expect(leader.stateMachine.entries.get('read')).toBe('me');
  });

  it('readIndex on a follower is refused with NotLeaderError naming the leader', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    const follower = cluster.members.find((member) => member !== leader)!;
    await expect.poll(() => follower.node.status().leaderId, { timeout: 10_000 }).toBe(leader.nodeId);
    const error = await follower.node.readIndex().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotLeaderError);
    expect(error).toMatchObject({ leaderId: leader.nodeId });
  });

  it('transferLeadership hands the quorum to the chosen voter, which then takes proposals', async () => {
    await cluster.start(3);
    const leader = await cluster.leader();
    await leader.node.propose([{ key: 'before', value: 'transfer' }]);
    const target = cluster.members.find((member) => member !== leader)!;
    await leader.node.transferLeadership(target.nodeId, { timeoutMs: 10_000 });
    await expect.poll(() => target.node.status().role, { timeout: 10_000 }).toBe('leader');
    const position = await target.node.propose([{ key: 'after', value: 'transfer' }]);
    expect(position.epoch).toBeGreaterThan(0);
    expect(target.stateMachine.entries.get('before')).toBe('transfer');
    await expect(leader.node.transferLeadership(99)).rejects.toBeInstanceOf(NotLeaderError);
    await expect(target.node.transferLeadership(99)).rejects.toBeInstanceOf(LeadershipTransferError);
  });
});

describe('RaftNode proposals under load and without a quorum', () => {
  it('waits for room when the accumulator is full instead of throwing, and commits everything', async () => {
    const messages: string[] = [];
    const directory = cluster.newDirectory();
    const node = await RaftNode.bind({
      ...cluster.nodeOptions(1, directory, {}),
      logger: recordingLogger(messages),
    });
    try {
      await node.start(`1@127.0.0.1:${node.endpoints()[0]!.port}`);
      await expect.poll(() => node.status().role, { timeout: 10_000 }).toBe('leader');
      // 48 proposals of 1 MiB at once: more batches than the accumulator holds (10).
      const value = 'x'.repeat(1024 * 1024 - 32);
      const proposals = Array.from({ length: 48 }, (_, index) => node.propose([{ key: `k${index}`, value }]));
      const positions = await Promise.all(proposals);
      expect(messages).toContain('accumulator full: propose waits for room');
      const offsets = positions.map((position) => position.offset);
      expect(new Set(offsets).size).toBe(48);
      expect(node.status().applied?.offset).toBe(Math.max(...offsets));
    } finally {
      await node.close();
    }
  });

  it('ends a proposal that cannot reach a majority as indeterminate at its timeout', async () => {
    // Check-quorum resigns a leader after 1.5 × fetchTimeoutMs without followers: keep it leading.
    await cluster.start(3, { fetchTimeoutMs: 10_000 });
    const leader = await cluster.leader();
    await leader.node.propose([{ key: 'a', value: '1' }]);
    for (const member of cluster.members) if (member !== leader) await member.node.close();
    const error = await leader.node
      .propose([{ key: 'b', value: '2' }], { timeoutMs: 300 })
      .catch((caught: unknown) => caught);
    // Appended on the leader but never acknowledged by a majority: it may yet commit later.
    expect(error).toBeInstanceOf(IndeterminateError);
    expect(error).toMatchObject({ reason: 'timeout' });
  });

  it('ends a pending proposal with reason closed as soon as the node closes', async () => {
    await cluster.start(3, { fetchTimeoutMs: 10_000 });
    const leader = await cluster.leader();
    await leader.node.propose([{ key: 'a', value: '1' }]);
    for (const member of cluster.members) if (member !== leader) await member.node.close();
    // No majority: only close() can end it before its (long) timeout.
    const pending = leader.node
      .propose([{ key: 'b', value: '2' }], { timeoutMs: 60_000 })
      .catch((caught: unknown) => caught);
    await leader.node.close();
    const error = await pending;
    expect(error).toBeInstanceOf(IndeterminateError);
    expect(error).toMatchObject({ reason: 'closed' });
  });
});

describe('RaftNode refuses what it must not run on', () => {
  it('calls after a state machine failed to apply a committed value, naming the failure', async () => {
    const options = cluster.nodeOptions(1, cluster.newDirectory(), {});
    const failing = new MapStateMachine();
    failing.apply = (command) => {
      if (command.value === 'boom') throw new Error('cannot apply boom');
    };
    const node = await RaftNode.bind({ ...options, stateMachine: failing });
    try {
      await node.start(`1@127.0.0.1:${node.endpoints()[0]!.port}`);
      await node.waitForLeader({ timeoutMs: 10_000 });
      // The proposal committed, but the node stopped while applying it: its outcome is not reported.
      await expect(node.propose([{ key: 'k', value: 'boom' }])).rejects.toBeInstanceOf(IndeterminateError);
      expect(node.status().phase).toBe('failed');
      const error = await node.propose([{ key: 'k', value: 'fine' }]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RaftNodeClosedError);
      // The driver's error, whose cause is what apply threw.
      const driverError = (error as Error).cause as Error;
      expect(driverError.name).toBe('RaftDriverError');
      expect(String(driverError.cause)).toContain('cannot apply boom');
    } finally {
      await node.close().catch(() => {});
    }
  });

  it('ends a pending proposal with reason closed when the driver stops on a failure', async () => {
    const failing = new MapStateMachine();
    failing.apply = (command) => {
      if (command.value === 'boom') throw new Error('cannot apply boom');
    };
    const node = await RaftNode.bind({
      ...cluster.nodeOptions(1, cluster.newDirectory(), {}),
      stateMachine: failing,
    });
    try {
      await node.start(`1@127.0.0.1:${node.endpoints()[0]!.port}`);
      await node.waitForLeader({ timeoutMs: 10_000 });
      // Far longer than the failure takes: only the driver's failure can end the wait this soon.
      const error = await node
        .propose([{ key: 'k', value: 'boom' }], { timeoutMs: 60_000 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(IndeterminateError);
      expect(error).toMatchObject({ reason: 'closed' });
    } finally {
      await node.close().catch(() => {});
    }
  });

  it('voters that do not list the node, leaving the directory unlocked and the port free', async () => {
    const directory = cluster.newDirectory();
    const options = cluster.nodeOptions(1, directory, {});
    await expect(RaftNode.open({ ...options, voters: '2@127.0.0.1:9' })).rejects.toThrow(
      InvalidConfigurationError,
    );
    // Nothing stayed locked: the same directory opens at once.
    const node = await RaftNode.open({ ...options, voters: '1@127.0.0.1:9' });
    await node.close();
  });

  it('a directory another node holds, with the log’s lock error', async () => {
    const directory = cluster.newDirectory();
    const options = cluster.nodeOptions(1, directory, {});
    const first = await RaftNode.open({ ...options, voters: '1@127.0.0.1:9' });
    try {
      await expect(RaftNode.open({ ...options, voters: '1@127.0.0.1:9' })).rejects.toThrow(
        LogDirectoryLockedError,
      );
    } finally {
      await first.close();
    }
  });

  it('a directory formatted for another cluster, with LogDirectoryError', async () => {
    const directory = cluster.newDirectory();
    const options = cluster.nodeOptions(1, directory, {});
    const node = await RaftNode.open({ ...options, voters: '1@127.0.0.1:9' });
    await node.close();
    await node.close();
    const error = await RaftNode.open({ ...options, clusterId: 'another', voters: '1@127.0.0.1:9' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(LogDirectoryError);
    expect(String(error)).toContain('cluster.id is raft-node-test, expected another');
  });
});

async function waitForLeaderAmong(members: readonly { node: { status(): { role: string } } }[]) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const leader = members.find((member) => member.node.status().role === 'leader');
    if (leader !== undefined) return leader as (typeof cluster.members)[number];
    if (Date.now() > deadline) throw new Error('no new leader');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function snapshotCount(directory: string): number {
  return readdirSync(join(directory, '__cluster_metadata-0')).filter((name) => name.endsWith('.checkpoint'))
    .length;
}
