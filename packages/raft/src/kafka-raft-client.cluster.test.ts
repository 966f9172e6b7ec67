/**
 * A few whole-cluster runs wired by hand (the simulator in test/simulation does this at scale):
 * every node is a real KafkaRaftClient on a MockLog, messages hop through MockNetworkChannels.
 */
import { describe, expect, it } from 'vitest';
import { carryOutReadyAtOnce } from '../test/kit/carry-out-ready.js';
import { MockLog } from '../test/kit/mock-log.js';
import { MockNetworkChannel } from '../test/kit/mock-network-channel.js';
import { MockQuorumStateStore } from '../test/kit/mock-quorum-state-store.js';
import { MockListener } from '../test/kit/raft-client-test-context.js';
import { KafkaRaftClient } from './kafka-raft-client.js';
import { SeededRandom } from './ports/random.js';
import type { QuorumConfig } from './quorum-config.js';
import type { OperationCompletion } from './raft-outbox.js';
import { VoterSet } from './voter-set.js';

interface Node {
  readonly id: number;
  readonly client: KafkaRaftClient;
  readonly log: MockLog;
  readonly channel: MockNetworkChannel;
  readonly store: MockQuorumStateStore;
  readonly listener: MockListener;
  /** What `ready()` handed out for read barriers and transfers. */
  readonly completions: OperationCompletion[];
}

class MiniCluster {
  readonly nodes: Node[];
  nowMs = 0;
  /** Nodes cut off from everybody. */
  readonly isolated = new Set<number>();

  constructor(size: number, seed: number, config: Partial<QuorumConfig> = {}) {
    const voters = VoterSet.fromIds(Array.from({ length: size }, (_, id) => id));
    this.nodes = voters.voterIds().map((id) => {
      const log = new MockLog();
      const channel = new MockNetworkChannel();
      const store = new MockQuorumStateStore();
      const client = new KafkaRaftClient({
        nodeId: id,
        voters,
        log,
        network: channel,
        quorumStateStore: store,
        random: new SeededRandom(seed * 31 + id),
        config: {
          electionTimeoutMs: 100,
          fetchTimeoutMs: 200,
          fetchMaxWaitMs: 20,
          appendLingerMs: 0,
          requestTimeoutMs: 100,
          ...config,
        },
      });
      const listener = new MockListener();
      client.register(listener);
      client.initialize(0);
      return { id, client, log, channel, store, listener, completions: [] };
    });
  }

  private node(id: number): Node {
    return this.nodes[id] as Node;
  }

  private linked(from: number, to: number): boolean {
    return !this.isolated.has(from) && !this.isolated.has(to);
  }

  step(stepMs: number): void {
    this.nowMs += stepMs;
    for (const node of this.nodes) {
      for (const request of node.channel.drainSendQueue()) {
        if (!this.linked(node.id, request.destinationId)) continue;
        this.node(request.destinationId).client.handleRequest({ ...request, sourceId: node.id }, this.nowMs);
      }
      for (const { request, data } of node.channel.drainSentResponses()) {
        if (!this.linked(node.id, request.sourceId)) continue;
        this.node(request.sourceId).client.handleResponse(
          {
            correlationId: request.correlationId,
            apiKey: request.apiKey,
            sourceId: node.id,
            data,
            receivedTimeMs: this.nowMs,
          },
          this.nowMs,
        );
      }
    }
    for (const node of this.nodes) {
      node.client.poll(this.nowMs);
      carryOutReadyAtOnce(node.client, node.store, node.channel, this.nowMs, undefined, node.completions);
      if (node.client.needsFlush()) node.client.onLogFlushed(node.log.flushSync(), this.nowMs);
      carryOutReadyAtOnce(node.client, node.store, node.channel, this.nowMs, undefined, node.completions);
    }
  }

  runFor(durationMs: number, stepMs = 5): void {
    for (let elapsed = 0; elapsed < durationMs; elapsed += stepMs) this.step(stepMs);
  }

  leaders(): Node[] {
    return this.nodes.filter((node) => !this.isolated.has(node.id) && node.client.quorumState().isLeader());
  }
}

describe('whole clusters', () => {
  it.each([1, 2, 3])('three voters elect one leader and commit writes on every node (seed %i)', (seed) => {
    const cluster = new MiniCluster(3, seed);
    cluster.runFor(1000);
    const leaders = cluster.leaders();
    expect(leaders).toHaveLength(1);
    const leader = leaders[0]!;
    const epoch = leader.client.leaderAndEpoch().epoch;
    for (let index = 0; index < 10; index += 1)
      leader.client.scheduleAppend(epoch, [Buffer.from(`v${index}`)]);
    cluster.runFor(500);
    for (const node of cluster.nodes) {
      expect(node.listener.committedValues()).toEqual(Array.from({ length: 10 }, (_, index) => `v${index}`));
    }
  });

  it('a new leader takes over when the old one is cut off, and committed data survives', () => {
    const cluster = new MiniCluster(3, 7);
    cluster.runFor(1000);
    const first = cluster.leaders()[0]!;
    const firstEpoch = first.client.leaderAndEpoch().epoch;
    first.client.scheduleAppend(firstEpoch, [Buffer.from('before')]);
    cluster.runFor(300);
    cluster.isolated.add(first.id);
    cluster.runFor(2000);
    const second = cluster.leaders()[0]!;
    expect(second.id).not.toBe(first.id);
    expect(second.client.leaderAndEpoch().epoch).toBeGreaterThan(firstEpoch);
    // Check-quorum made the isolated old leader step down.
    expect(first.client.quorumState().isLeader()).toBe(false);
    second.client.scheduleAppend(second.client.leaderAndEpoch().epoch, [Buffer.from('after')]);
    cluster.runFor(300);
    cluster.isolated.clear();
    cluster.runFor(2000);
    for (const node of cluster.nodes) expect(node.listener.committedValues()).toEqual(['before', 'after']);
  });

  it('an isolated voter’s pre-votes never raise the epoch the others use', () => {
    const cluster = new MiniCluster(3, 11);
    cluster.runFor(1000);
    const leader = cluster.leaders()[0]!;
    const epoch = leader.client.leaderAndEpoch().epoch;
    const follower = cluster.nodes.find((node) => node.id !== leader.id)!;
    cluster.isolated.add(follower.id);
    cluster.runFor(3000);
    expect(follower.client.leaderAndEpoch().epoch).toBe(epoch);
    cluster.isolated.clear();
    cluster.runFor(1000);
    expect(cluster.leaders().map((node) => node.id)).toEqual([leader.id]);
    expect(leader.client.leaderAndEpoch().epoch).toBe(epoch);
  });

  it('five voters keep committing on the majority side of a partition', () => {
    const cluster = new MiniCluster(5, 5);
    cluster.runFor(1000);
    const leader = cluster.leaders()[0]!;
    const minority = cluster.nodes.filter((node) => node.id !== leader.id).slice(0, 2);
    for (const node of minority) cluster.isolated.add(node.id);
    const epoch = leader.client.leaderAndEpoch().epoch;
    leader.client.scheduleAppend(epoch, [Buffer.from('majority')]);
    cluster.runFor(500);
    expect(leader.client.quorumState().isLeader()).toBe(true);
    expect(leader.listener.committedValues()).toEqual(['majority']);
    cluster.isolated.clear();
    cluster.runFor(1000);
    for (const node of cluster.nodes) expect(node.listener.committedValues()).toEqual(['majority']);
  });

  it('a graceful leader shutdown hands leadership over well before the fetch timeout', () => {
    const cluster = new MiniCluster(3, 13);
    cluster.runFor(1000);
    const leader = cluster.leaders()[0]!;
    const epoch = leader.client.leaderAndEpoch().epoch;
    leader.client.shutdown(1000, cluster.nowMs);
    cluster.runFor(60);
    const next = cluster.leaders();
    expect(next).toHaveLength(1);
    expect(next[0]!.id).not.toBe(leader.id);
    expect(next[0]!.client.leaderAndEpoch().epoch).toBe(epoch + 1);
    expect(leader.client.isShutdownComplete()).toBe(true);
  });

  it.each([3, 5])('a leadership transfer makes the chosen voter of %i the next leader at once', (size) => {
    const cluster = new MiniCluster(size, 17);
    cluster.runFor(1000);
    const leader = cluster.leaders()[0]!;
    const epoch = leader.client.leaderAndEpoch().epoch;
    leader.client.scheduleAppend(epoch, [Buffer.from('before')]);
    const target = cluster.nodes.filter((node) => node.id !== leader.id).at(-1)!;
    const id = leader.client.transferLeadership(target.id, cluster.nowMs, 1000);
    // Well inside one election timeout (100 ms): the target campaigns as soon as it is told.
    cluster.runFor(80);
    expect(cluster.leaders().map((node) => node.id)).toEqual([target.id]);
    expect(target.client.leaderAndEpoch().epoch).toBe(epoch + 1);
    expect(leader.completions).toEqual([{ kind: 'leadership-transfer', id, leaderEpoch: epoch + 1 }]);
    cluster.runFor(200);
    for (const node of cluster.nodes) expect(node.listener.committedValues()).toEqual(['before']);
  });

  it('a read barrier takes one round trip to the followers, not their long-poll wait', () => {
    // Followers long-poll for 500 ms, as with Kafka's defaults.
    const cluster = new MiniCluster(3, 19, {
      fetchMaxWaitMs: 500,
      fetchTimeoutMs: 2000,
      requestTimeoutMs: 1000,
    });
    cluster.runFor(1000);
    const leader = cluster.leaders()[0]!;
    const epoch = leader.client.leaderAndEpoch().epoch;
    leader.client.scheduleAppend(epoch, [Buffer.from('acknowledged')]);
    cluster.runFor(100);
    expect(leader.listener.committedValues()).toEqual(['acknowledged']);
    const highWatermark = leader.client.highWatermark()!;
    // The followers' fetches are parked; three steps of 5 ms carry the answers and the next fetches.
    cluster.runFor(5);
    const id = leader.client.readIndex(cluster.nowMs, 1000);
    cluster.runFor(15);
    expect(leader.completions).toEqual([{ kind: 'read-index', id, readOffset: highWatermark }]);
  });
});
