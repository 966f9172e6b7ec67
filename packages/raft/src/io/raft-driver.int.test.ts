// The driver over the real core, the real log on disk (tmpdir, real fdatasync) and the file
// quorum-state store: a single-voter quorum elects itself, commits through async flushes,
// shuts down gracefully and restarts from what it wrote.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeFileSystem } from '@kraft/records';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MockNetworkChannel } from '../../test/kit/mock-network-channel.js';
import { KafkaRaftClient } from '../kafka-raft-client.js';
import { SeededRandom } from '../ports/random.js';
import type { BatchReader, Listener, SnapshotReader } from '../raft-client.js';
import { VoterSet } from '../voter-set.js';
import { FileQuorumStateStore } from './file-quorum-state-store.js';
import { openKafkaRaftLog } from './kafka-raft-log.js';
import { RaftDriver } from './raft-driver.js';
import { SystemTime } from './system-time.js';

const directories: string[] = [];

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

class CollectingListener implements Listener {
  readonly values: string[] = [];
  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) {
        if (batch.isControl) continue;
        for (const record of batch.records) this.values.push(record.value?.toString('utf8') ?? '');
      }
    } finally {
      reader.close();
    }
  }
  handleLoadSnapshot(reader: SnapshotReader): void {
    reader.close();
  }
}

function startNode(directory: string): {
  driver: RaftDriver;
  client: KafkaRaftClient;
  listener: CollectingListener;
} {
  const fileSystem = new NodeFileSystem();
  const time = new SystemTime();
  const log = openKafkaRaftLog({ dir: directory, fileSystem });
  const network = new MockNetworkChannel();
  const quorumStateStore = new FileQuorumStateStore({
    fileSystem,
    path: join(directory, '__cluster_metadata-0', 'quorum-state'),
  });
  const client = new KafkaRaftClient({
    nodeId: 1,
    voters: VoterSet.fromIds([1]),
    log,
    network,
    quorumStateStore,
    random: new SeededRandom(7),
    config: { appendLingerMs: 0, electionTimeoutMs: 200 },
  });
  client.initialize(time.milliseconds());
  const listener = new CollectingListener();
  client.register(listener);
  const driver = new RaftDriver({ client, log, network, quorumStateStore, time });
  return { driver, client, listener };
}

describe('RaftDriver with the real client and log', () => {
  it('commits through background flushes, shuts down, and restarts from disk', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'kraft-driver-'));
    directories.push(directory);
    const first = startNode(directory);
    const stopped = first.driver.start();
    await vi.waitFor(() => expect(first.driver.state().role).toBe('leader'), { timeout: 10_000 });
    const epoch = first.driver.state().epoch;
    for (const value of ['a', 'b', 'c']) first.driver.scheduleAppend(epoch, [Buffer.from(value)]);
    await vi.waitFor(() => expect(first.listener.values).toEqual(['a', 'b', 'c']), { timeout: 10_000 });
    const state = first.driver.state();
    expect(state.highWatermark).toBe(state.logEndOffset);
    expect(state.lastFlushedOffset).toBe(state.logEndOffset);
    // The core's commit-latency tracker (the one tracker) measured the batch the three appends
    // of one tick formed.
    expect(state.raft?.committedBatches).toBeGreaterThan(0);
    expect(state.raft?.commitLatencyMaxMs).toBeGreaterThanOrEqual(0);
    expect(state.raft?.role).toBe('Leader');
    await first.driver.shutdown(5_000);
    await stopped;
    expect(first.client.isShutdownComplete()).toBe(true);
    expect(first.driver.state()).toMatchObject({ running: false, highWatermark: state.highWatermark });
    const stored = readFileSync(join(directory, '__cluster_metadata-0', 'quorum-state'), 'utf8');
    expect(stored).toMatch(
      /^\{"clusterId":"","leaderId":1,"leaderEpoch":\d+,"votedId":1,.*"data_version":0\}$/,
    );

    const second = startNode(directory);
    const restarted = second.driver.start();
    // It restarts Resigned in its old epoch and campaigns again after an election timeout.
    await vi.waitFor(() => expect(second.driver.state().role).toBe('leader'), { timeout: 10_000 });
    expect(second.driver.state().epoch).toBeGreaterThan(epoch);
    await vi.waitFor(() => expect(second.listener.values).toEqual(['a', 'b', 'c']), { timeout: 10_000 });
    await second.driver.shutdown(5_000);
    await restarted;
  });
});
