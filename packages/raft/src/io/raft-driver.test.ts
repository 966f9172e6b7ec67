import { Uuid } from '@kraft/protocol';
import { describe, expect, it, vi } from 'vitest';
import { MockLog } from '../../test/kit/mock-log.js';
import { MockNetworkChannel } from '../../test/kit/mock-network-channel.js';
import { MockQuorumStateStore } from '../../test/kit/mock-quorum-state-store.js';
import { MockableRandom } from '../../test/kit/raft-client-test-context.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { KafkaRaftClient, RaftApiKey } from '../kafka-raft-client.js';
import type { InboundRequest, InboundResponse, OutboundRequest } from '../ports/network-channel.js';
import type { QuorumStateData } from '../ports/quorum-state-store.js';
import type { RawSnapshotWriter } from '../ports/raft-log.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { RaftReady } from '../raft-outbox.js';
import { ReplicaKey } from '../replica-key.js';
import { buildVoteRequest, METADATA_TOPIC } from '../rpc/raft-messages.js';
import { VoterSet } from '../voter-set.js';
import { type DrivenRaftClient, type DrivenRaftLog, RaftDriver, RaftDriverError } from './raft-driver.js';
import { SystemTime } from './system-time.js';

/** Only handed through: the fake log's freeze never touches it. */
const SNAPSHOT_WRITER = { snapshotId: { offset: 10, epoch: 2 } } as RawSnapshotWriter;

function snapshotInstallReady(): RaftReady {
  return {
    electionState: undefined,
    snapshotInstall: { id: 1, writer: SNAPSHOT_WRITER },
    messages: [],
    completions: [],
  };
}

class FakeClient implements DrivenRaftClient {
  readonly calls: string[] = [];
  deadlineDelayMs = 5;
  shutdownComplete = false;
  highWatermarkValue: number | undefined = undefined;
  leader: LeaderAndEpoch = { leaderId: 1, epoch: 3 };
  nextOffset = 0;
  nextOperationId = 0;
  log: FakeLog | undefined;
  /** What the next `ready()` calls hand out, one entry per call. */
  readyQueue: RaftReady[] = [];

  poll(nowMs: number): number {
    this.calls.push('poll');
    return nowMs + this.deadlineDelayMs;
  }
  /** False makes the client's inbound queue refuse, as when full. */
  acceptsInbound = true;

  handleRequest(request: InboundRequest): boolean {
    if (this.acceptsInbound) this.calls.push(`request ${request.correlationId}`);
    return this.acceptsInbound;
  }
  handleResponse(response: InboundResponse): boolean {
    if (this.acceptsInbound) this.calls.push(`response ${response.correlationId}`);
    return this.acceptsInbound;
  }
  onLogFlushed(offset: number): void {
    this.calls.push(`flushed ${offset}`);
  }
  ready(): RaftReady {
    return (
      this.readyQueue.shift() ?? {
        electionState: undefined,
        snapshotInstall: undefined,
        messages: [],
        completions: [],
      }
    );
  }
  onElectionStatePersisted(id: number): void {
    this.calls.push(`persisted ${id}`);
  }
  onSnapshotInstallDurable(id: number): void {
    this.calls.push(`snapshot durable ${id}`);
  }
  shutdown(timeoutMs: number): void {
    this.calls.push(`shutdown ${timeoutMs}`);
  }
  isShutdownComplete(): boolean {
    return this.shutdownComplete;
  }
  leaderAndEpoch(): LeaderAndEpoch {
    return this.leader;
  }
  highWatermark(): number | undefined {
    return this.highWatermarkValue;
  }
  nodeId(): number | undefined {
    return 1;
  }
  private wakeupListener: (() => void) | undefined;

  setWakeupListener(listener: (() => void) | undefined): void {
    this.wakeupListener = listener;
  }
  readIndex(): number {
    this.calls.push('readIndex');
    this.wakeupListener?.();
    this.nextOperationId += 1;
    return this.nextOperationId;
  }
  transferLeadership(targetId: number): number {
    this.calls.push(`transferLeadership ${targetId}`);
    this.wakeupListener?.();
    this.nextOperationId += 1;
    return this.nextOperationId;
  }
  scheduleAppend(_epoch: number, records: readonly Buffer[]): number {
    this.nextOffset += records.length;
    if (this.log !== undefined) this.log.end = this.nextOffset;
    this.wakeupListener?.();
    return this.nextOffset - 1;
  }
}

class FakeLog implements DrivenRaftLog {
  end = 0;
  flushed = 0;
  closed = false;
  flushes: Array<{ resolve: (offset: number) => void; reject: (error: Error) => void; end: number }> = [];

  endOffset(): number {
    return this.end;
  }
  lastFlushedOffset(): number {
    return this.flushed;
  }
  flush(): Promise<number> {
    const end = this.end;
    return new Promise((resolve, reject) => {
      this.flushes.push({
        end,
        resolve: (offset) => {
          this.flushed = offset;
          resolve(offset);
        },
        reject,
      });
    });
  }
  /** Snapshot freezes in flight, finished (or failed) when the test says. */
  freezes: Array<{ writer: RawSnapshotWriter; resolve: () => void; reject: (error: Error) => void }> = [];

  freezeFetchedSnapshot(writer: RawSnapshotWriter): Promise<void> {
    return new Promise((resolve, reject) => {
      this.freezes.push({ writer, resolve, reject });
    });
  }
  close(): void {
    this.closed = true;
  }
}

/** A network that records what leaves, and a quorum-state disk whose writes finish when told. */
class FakeNetwork {
  readonly sent: string[] = [];
  send(request: OutboundRequest): void {
    this.sent.push(`request ${request.correlationId}`);
  }
  sendResponse(request: InboundRequest): void {
    this.sent.push(`response ${request.correlationId}`);
  }
}

class FakeStore {
  readonly writes: Array<{ data: QuorumStateData; resolve: () => void; reject: (error: Error) => void }> = [];
  writeElectionState(data: QuorumStateData): Promise<void> {
    return new Promise((resolve, reject) => this.writes.push({ data, resolve, reject }));
  }
}

const ELECTION: QuorumStateData = {
  leaderId: -1,
  leaderEpoch: 4,
  votedId: 2,
  votedDirectoryId: { toString: () => 'zero' } as QuorumStateData['votedDirectoryId'],
  currentVoters: null,
};

function outboundRequest(correlationId: number): OutboundRequest {
  return { correlationId, apiKey: 52, apiVersion: 2, data: {}, createdTimeMs: 0, destinationId: 2 };
}

function request(correlationId: number): InboundRequest {
  return { correlationId, apiKey: 1, apiVersion: 17, data: {}, createdTimeMs: 0, sourceId: 2 };
}

/** The ports of a driver over fakes, not started. */
function newDriverPorts() {
  const client = new FakeClient();
  const log = new FakeLog();
  client.log = log;
  return {
    client,
    log,
    network: new FakeNetwork(),
    quorumStateStore: new FakeStore(),
    time: new SystemTime(),
  };
}

function newDriver(): {
  driver: RaftDriver;
  client: FakeClient;
  log: FakeLog;
  network: FakeNetwork;
  store: FakeStore;
  stopped: Promise<void>;
} {
  const client = new FakeClient();
  const log = new FakeLog();
  const network = new FakeNetwork();
  const store = new FakeStore();
  client.log = log;
  const driver = new RaftDriver({ client, log, network, quorumStateStore: store, time: new SystemTime() });
  const stopped = driver.start();
  return { driver, client, log, network, store, stopped };
}

describe('RaftDriver', () => {
  it('hands inbound messages to the client before the poll that follows', async () => {
    const { driver, client, stopped } = newDriver();
    client.deadlineDelayMs = 60_000;
    await vi.waitFor(() => expect(client.calls).toContain('poll'));
    expect(driver.deliverRequest(request(7))).toBe(true);
    expect(
      driver.deliverResponse({ correlationId: 8, apiKey: 1, sourceId: 2, data: {}, receivedTimeMs: 0 }),
    ).toBe(true);
    // The loop sleeps until a minute from now unless the delivery wakes it.
    await vi.waitFor(() => expect(client.calls.slice(-3)).toEqual(['request 7', 'response 8', 'poll']));
    client.shutdownComplete = true;
    await driver.shutdown(1000);
    await stopped;
  });

  it('polls again when the deadline passes without any message', async () => {
    const { driver, client } = newDriver();
    client.deadlineDelayMs = 1;
    await vi.waitFor(() => expect(client.calls.filter((call) => call === 'poll').length).toBeGreaterThan(3));
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('flushes in the background and reports the flushed offset on a later turn', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 60_000;
    driver.scheduleAppend(3, [Buffer.from('a'), Buffer.from('b')]);
    await vi.waitFor(() => expect(log.flushes).toHaveLength(1));
    // Polls keep running while the flush is outstanding, and no second flush starts.
    driver.deliverRequest(request(1));
    await vi.waitFor(() => expect(client.calls.at(-1)).toBe('poll'));
    expect(client.calls).toContain('request 1');
    expect(log.flushes).toHaveLength(1);
    expect(client.calls.some((call) => call.startsWith('flushed'))).toBe(false);
    log.flushes[0]?.resolve(2);
    await vi.waitFor(() => expect(client.calls).toContain('flushed 2'));
    expect(driver.state().lastFlushedOffset).toBe(2);
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('reports the offset a flush covered, not the appends made while it was in flight', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 60_000;
    driver.scheduleAppend(3, [Buffer.from('a'), Buffer.from('b')]);
    await vi.waitFor(() => expect(log.flushes).toHaveLength(1));
    const first = log.flushes[0]!;
    expect(first.end).toBe(2);
    // Appends reach 5 while the flush of 2 is still running.
    driver.scheduleAppend(3, [Buffer.from('c'), Buffer.from('d'), Buffer.from('e')]);
    await vi.waitFor(() => expect(client.calls.at(-1)).toBe('poll'));
    expect(log.end).toBe(5);
    first.resolve(first.end);
    await vi.waitFor(() => expect(client.calls.some((call) => call.startsWith('flushed'))).toBe(true));
    expect(client.calls.filter((call) => call.startsWith('flushed'))).toEqual(['flushed 2']);
    // The rest gets a flush of its own, reported when it completes.
    await vi.waitFor(() => expect(log.flushes).toHaveLength(2));
    const second = log.flushes[1]!;
    expect(second.end).toBe(5);
    second.resolve(second.end);
    await vi.waitFor(() => expect(client.calls).toContain('flushed 5'));
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('stops with a typed error when a flush fails, and refuses messages afterwards', async () => {
    const { driver, log, stopped } = newDriver();
    driver.scheduleAppend(3, [Buffer.from('a')]);
    await vi.waitFor(() => expect(log.flushes).toHaveLength(1));
    log.flushes[0]?.reject(new Error('EIO'));
    await expect(stopped).rejects.toBeInstanceOf(RaftDriverError);
    expect(driver.deliverRequest(request(1))).toBe(false);
    expect(driver.state().running).toBe(false);
  });

  it('shuts down gracefully: client shutdown, wait for completion, then close the log', async () => {
    const { driver, client, log, stopped } = newDriver();
    client.deadlineDelayMs = 1;
    await vi.waitFor(() => expect(client.calls).toContain('poll'));
    const shutdown = driver.shutdown(60_000);
    await vi.waitFor(() => expect(client.calls).toContain('shutdown 60000'));
    expect(log.closed).toBe(false);
    client.shutdownComplete = true;
    await shutdown;
    await stopped;
    expect(log.closed).toBe(true);
  });

  it('gives up waiting for the client after the shutdown timeout', async () => {
    const { driver, log } = newDriver();
    await driver.shutdown(5);
    expect(log.closed).toBe(true);
  });

  it("refuses inbound messages before start and when the client's queue refuses them", async () => {
    const client = new FakeClient();
    const log = new FakeLog();
    const driver = new RaftDriver({
      client,
      log,
      network: new FakeNetwork(),
      quorumStateStore: new FakeStore(),
      time: new SystemTime(),
    });
    expect(driver.deliverRequest(request(1))).toBe(false);
    expect(client.calls).toEqual([]);
    const stopped = driver.start();
    expect(driver.deliverRequest(request(2))).toBe(true);
    client.acceptsInbound = false;
    expect(driver.deliverRequest(request(3))).toBe(false);
    expect(
      driver.deliverResponse({ correlationId: 4, apiKey: 1, sourceId: 2, data: {}, receivedTimeMs: 0 }),
    ).toBe(false);
    client.shutdownComplete = true;
    await driver.shutdown(100);
    await stopped;
  });

  it('sends what ready() frees at once, writes the election off the loop and reports it only once durable', async () => {
    const { driver, client, network, store } = newDriver();
    client.deadlineDelayMs = 60_000;
    client.readyQueue.push({
      electionState: { id: 1, data: ELECTION, dataVersion: 0 },
      snapshotInstall: undefined,
      messages: [{ kind: 'request', request: outboundRequest(11) }],
      completions: [],
    });
    driver.wake();
    await vi.waitFor(() => expect(store.writes).toHaveLength(1));
    expect(store.writes[0]?.data).toBe(ELECTION);
    expect(network.sent).toEqual(['request 11']);
    // The loop keeps turning while the disk syncs; the write is not reported yet.
    driver.deliverRequest(request(12));
    await vi.waitFor(() => expect(client.calls).toContain('request 12'));
    expect(client.calls).not.toContain('persisted 1');
    store.writes[0]?.resolve();
    await vi.waitFor(() => expect(client.calls).toContain('persisted 1'));
    // Reported before the poll of that turn, so what the poll frees leaves in the same turn.
    const reported = client.calls.indexOf('persisted 1');
    expect(client.calls[reported + 1]).toBe('poll');
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('freezes a downloaded snapshot off the loop and reports it only once durable (ADR 0039)', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 60_000;
    client.readyQueue.push(snapshotInstallReady());
    driver.wake();
    await vi.waitFor(() => expect(log.freezes).toHaveLength(1));
    expect(log.freezes[0]?.writer).toBe(SNAPSHOT_WRITER);
    // The loop keeps turning while the disk syncs; the install is not reported yet.
    driver.deliverRequest(request(12));
    await vi.waitFor(() => expect(client.calls).toContain('request 12'));
    expect(client.calls).not.toContain('snapshot durable 1');
    log.freezes[0]?.resolve();
    await vi.waitFor(() => expect(client.calls).toContain('snapshot durable 1'));
    const reported = client.calls.indexOf('snapshot durable 1');
    expect(client.calls[reported + 1]).toBe('poll');
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('waits for a snapshot freeze in flight before closing the log', async () => {
    const { driver, client, log } = newDriver();
    client.readyQueue.push(snapshotInstallReady());
    driver.wake();
    await vi.waitFor(() => expect(log.freezes).toHaveLength(1));
    client.shutdownComplete = true;
    const shutdown = driver.shutdown(1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.closed).toBe(false);
    log.freezes[0]?.resolve();
    await shutdown;
    expect(log.closed).toBe(true);
  });

  it('stops with a typed error when the snapshot freeze fails', async () => {
    const { driver, client, log, stopped } = newDriver();
    client.readyQueue.push(snapshotInstallReady());
    driver.wake();
    await vi.waitFor(() => expect(log.freezes).toHaveLength(1));
    log.freezes[0]?.reject(new Error('EIO'));
    await expect(stopped).rejects.toBeInstanceOf(RaftDriverError);
    expect(client.calls).not.toContain('snapshot durable 1');
  });

  it('settles readIndex and transferLeadership from the completions ready() hands out', async () => {
    const { driver, client } = newDriver();
    client.deadlineDelayMs = 60_000;
    await vi.waitFor(() => expect(client.calls).toContain('poll'));
    const read = driver.readIndex();
    const transfer = driver.transferLeadership(2);
    const failedRead = driver.readIndex();
    const failure = new NotLeaderError('deposed', 3);
    client.readyQueue.push({
      electionState: undefined,
      snapshotInstall: undefined,
      messages: [],
      completions: [
        { kind: 'leadership-transfer', id: 2, leaderEpoch: 4 },
        { kind: 'read-index', id: 1, readOffset: 42 },
        { kind: 'failed', id: 3, error: failure },
      ],
    });
    driver.wake();
    await expect(read).resolves.toBe(42);
    await expect(transfer).resolves.toBeUndefined();
    await expect(failedRead).rejects.toBe(failure);
    expect(client.calls).toContain('transferLeadership 2');
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('rejects the operations still waiting when it stops', async () => {
    const { driver, client } = newDriver();
    client.deadlineDelayMs = 60_000;
    await vi.waitFor(() => expect(client.calls).toContain('poll'));
    const read = driver.readIndex();
    client.shutdownComplete = true;
    await driver.shutdown(1000);
    await expect(read).rejects.toBeInstanceOf(RaftDriverError);
    await expect(driver.readIndex()).rejects.toBeInstanceOf(RaftDriverError);
  });

  it('stops with a typed error when the quorum-state write fails', async () => {
    const { driver, client, store, stopped } = newDriver();
    client.readyQueue.push({
      electionState: { id: 1, data: ELECTION, dataVersion: 0 },
      snapshotInstall: undefined,
      messages: [],
      completions: [],
    });
    driver.wake();
    await vi.waitFor(() => expect(store.writes).toHaveLength(1));
    store.writes[0]?.reject(new Error('EIO'));
    await expect(stopped).rejects.toBeInstanceOf(RaftDriverError);
    expect(client.calls).not.toContain('persisted 1');
  });

  it('reports role and offsets', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 1;
    expect(driver.state()).toMatchObject({ role: 'leader', epoch: 3, leaderId: 1, logEndOffset: 0 });
    driver.scheduleAppend(3, [Buffer.from('a')]);
    client.highWatermarkValue = 1;
    await vi.waitFor(() => expect(driver.state().highWatermark).toBe(1));
    expect(log.end).toBe(1);
    client.leader = { leaderId: 2, epoch: 4 };
    expect(driver.state().role).toBe('follower');
    client.leader = { leaderId: undefined, epoch: 5 };
    expect(driver.state().role).toBe('unattached');
    client.shutdownComplete = true;
    log.flushes[0]?.resolve(1);
    await driver.shutdown(1000);
  });

  it('counts the time it sleeps between turns as poll idle time, and freezes it at the stop', async () => {
    expect(new RaftDriver(newDriverPorts()).state()).toMatchObject({ pollIdleMs: 0, runningMs: 0 });
    const { driver, client } = newDriver();
    client.deadlineDelayMs = 20;
    await vi.waitFor(() => expect(driver.state().pollIdleMs).toBeGreaterThanOrEqual(40));
    const running = driver.state();
    expect(running.pollIdleMs).toBeLessThanOrEqual(running.runningMs);
    client.shutdownComplete = true;
    await driver.shutdown(1000);
    const stopped = driver.state();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(driver.state()).toMatchObject({ pollIdleMs: stopped.pollIdleMs, runningMs: stopped.runningMs });
  });

  it('does not count the time spent in poll as idle', async () => {
    // A clock that jumps 1 s during every poll: a poll that keeps the loop busy for that long.
    let skewMs = 0;
    const time = { milliseconds: () => Date.now() + skewMs };
    const client = new FakeClient();
    const log = new FakeLog();
    client.log = log;
    let polls = 0;
    client.poll = (nowMs: number) => {
      polls += 1;
      skewMs += 1000;
      return nowMs + 5;
    };
    const driver = new RaftDriver({
      client,
      log,
      network: new FakeNetwork(),
      quorumStateStore: new FakeStore(),
      time,
    });
    const stopped = driver.start();
    await vi.waitFor(() => expect(polls).toBeGreaterThanOrEqual(3));
    // Each poll counted so far has moved the clock on inside the turn, outside any sleep.
    const pollsSoFar = polls;
    const state = driver.state();
    expect(state.runningMs - state.pollIdleMs).toBeGreaterThanOrEqual(1000 * pollsSoFar);
    client.shutdownComplete = true;
    await driver.shutdown(1000);
    await stopped;
  });
});

/** A MockQuorumStateStore whose writes reach it only when the test lets them (a slow disk). */
class SlowStore extends MockQuorumStateStore {
  readonly pending: Array<() => void> = [];
  override writeElectionState(
    ...args: Parameters<MockQuorumStateStore['writeElectionState']>
  ): Promise<void> {
    return new Promise((resolve) =>
      this.pending.push(() => {
        void super.writeElectionState(...args);
        resolve();
      }),
    );
  }
}

describe('RaftDriver with the real client', () => {
  it('answers a granted vote only after the quorum-state write completes', async () => {
    const log = new MockLog();
    const network = new MockNetworkChannel();
    const store = new SlowStore({
      leaderId: -1,
      leaderEpoch: 1,
      votedId: -1,
      votedDirectoryId: Uuid.ZERO,
      currentVoters: null,
    });
    const time = new SystemTime();
    const client = new KafkaRaftClient({
      nodeId: 0,
      voters: VoterSet.fromIds([0, 1, 2]),
      log,
      network,
      quorumStateStore: store,
      random: new MockableRandom(),
      config: { electionTimeoutMs: 60_000, fetchTimeoutMs: 60_000 },
    });
    client.initialize(time.milliseconds());
    const driver = new RaftDriver({ client, log, network, quorumStateStore: store, time });
    const stopped = driver.start();
    const data = buildVoteRequest({
      topic: METADATA_TOPIC,
      clusterId: null,
      candidateKey: ReplicaKey.of(1, Uuid.ZERO),
      voterKey: ReplicaKey.of(0, Uuid.ZERO),
      epoch: 2,
      lastEpoch: 0,
      lastOffset: 0,
      preVote: false,
    });
    driver.deliverRequest({
      correlationId: 9,
      apiKey: RaftApiKey.VOTE,
      apiVersion: 2,
      data,
      createdTimeMs: time.milliseconds(),
      sourceId: 1,
    });
    await vi.waitFor(() => expect(store.pending).toHaveLength(1));
    // The vote is cast in memory while the disk syncs; its answer waits.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(network.drainSentResponses(RaftApiKey.VOTE)).toEqual([]);
    expect(store.readElectionState()?.leaderEpoch).toBe(1);
    store.pending[0]?.();
    await vi.waitFor(() => expect(network.drainSentResponses(RaftApiKey.VOTE)).toHaveLength(1));
    expect(store.readElectionState()).toMatchObject({ leaderEpoch: 2, votedId: 1 });
    await driver.shutdown(100);
    await stopped;
  });
});
