// LocalQuorum's waits on real test servers (127.0.0.1, port 0 picked free). A node held with
// SIGSTOP right after its launch is what a starved machine does to it: no CPU, so no module
// loading, no stats line, no raft. Start-up and the election are bounded separately, and a failed
// run's nodes are stopped with SIGTERM before the kill, so their kept logs are complete.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll-until.js';
import {
  LeaderTimeoutError,
  LocalQuorum,
  NodeStartupTimeoutError,
  raftWorkloadArguments,
} from './local-quorum.js';

const LEADER_TIMEOUT_MS = 6_000;

let baseDirectory: string;

beforeEach(() => {
  baseDirectory = mkdtempSync(join(tmpdir(), 'local-quorum-test-'));
});

afterEach(() => {
  rmSync(baseDirectory, { recursive: true, force: true });
});

function quorumOptions() {
  return {
    nodeCount: 3,
    serverArguments: raftWorkloadArguments(200, 64),
    statsIntervalMs: 200,
    baseDirectory,
  };
}

describe('LocalQuorum', () => {
  it('counts the leader timeout from when every node has started, not from the launch', async () => {
    const quorum = await LocalQuorum.create(quorumOptions());
    const late = quorum.node(3);
    try {
      late.signal('SIGSTOP');
      // Held until the leader timeout is over: counted from the launch, the wait has failed by then.
      const release = sleep(LEADER_TIMEOUT_MS + 1_000).then(() => late.signal('SIGCONT'));
      const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
      await release;
      expect(quorum.nodes.every((node) => node.status?.leaderId === leader.nodeId)).toBe(true);
      expect(late.started).toBe(true);
    } finally {
      late.signal('SIGCONT');
      quorum.destroy();
    }
  });

  it('fails a node that does not start in time as a start-up timeout, naming it, its CPU time and the load', async () => {
    const quorum = await LocalQuorum.create(quorumOptions());
    const stuck = quorum.node(3);
    try {
      stuck.signal('SIGSTOP');
      await pollUntil(
        'nodes 1 and 2 to start',
        60_000,
        () => quorum.node(1).started && quorum.node(2).started,
        {
          intervalMs: 20,
        },
      );
      const waiting = quorum.waitForLeader(30_000, 1_000);
      await expect(waiting).rejects.toBeInstanceOf(NodeStartupTimeoutError);
      await expect(waiting).rejects.toThrow(
        /^node 3 printed no stats line within 1000 ms \(node 1: \w+ in epoch/,
      );
      // Its CPU time is near 0 but not always 0.00: the process may run a moment before SIGSTOP lands.
      await expect(waiting).rejects.toThrow(
        /node 3: no stats line yet, \d+\.\d s after its start, \d+\.\d\d CPU-s used/,
      );
      await expect(waiting).rejects.toThrow(/; load average \d+\.\d\): start-up ran out of time/);
    } finally {
      stuck.signal('SIGCONT');
      quorum.destroy();
    }
  });

  it("fails a quorum that starts but elects nobody as a leader timeout, with each node's view", async () => {
    // No node's election timer runs out during the test: every node stays Unattached in epoch 0.
    const quorum = await LocalQuorum.create({
      ...quorumOptions(),
      properties: { 'controller.quorum.election.timeout.ms': '600000' },
    });
    try {
      const waiting = quorum.waitForLeader(1_000);
      await expect(waiting).rejects.toBeInstanceOf(LeaderTimeoutError);
      await expect(waiting).rejects.toThrow(
        /^no leader every node knows within 1000 ms of every node having started \(node 1: Unattached in epoch 0, leader none, \d+\.\d\d CPU-s used; node 2: .*; node 3: .*; load average \d+\.\d\)$/,
      );
    } finally {
      quorum.destroy();
    }
  });

  it("stops a failed run's nodes with SIGTERM before the kill, and keeps their stats lines beside their logs", async () => {
    const failing = LocalQuorum.run(quorumOptions(), async (quorum) => {
      await quorum.waitForLeader(30_000);
      throw new Error('the body failed');
    });
    await expect(failing).rejects.toThrow('the body failed');
    const [runDirectory] = readdirSync(baseDirectory);
    expect(runDirectory).toBeDefined();
    for (const nodeId of [1, 2, 3]) {
      const nodeDirectory = join(baseDirectory, runDirectory as string, `n${nodeId}`);
      const messages = readFileSync(join(nodeDirectory, 'stderr.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      // Logged on SIGTERM: a SIGKILL first would have left the log at what the run was doing.
      expect(messages).toContain('shutting down');
      expect(readFileSync(join(nodeDirectory, 'stdout.log'), 'utf8')).toMatch(
        /Role: (Leader|Follower), Epoch: \d+/,
      );
    }
  });
});
