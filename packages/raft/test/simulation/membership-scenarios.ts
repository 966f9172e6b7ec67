// Voter change scenarios (KIP-853, ADR 0047): AddRaftVoter and RemoveRaftVoter sent by an admin
// client to whichever node leads, at kraft.version 1, with the usual invariants plus one voter
// change uncommitted at a time and leaders elected by a voter set that held them. They run only
// when named (`pnpm sim --scenario <name>`, the smoke tier): adding them to the seeds' own draw
// would change every seed's scenario and trace.
import { ApiKeys, Errors } from '@kraft/protocol';
import type { Cluster } from '../../src/testing/cluster.js';
import type { SimulationRandom } from '../../src/testing/simulation-random.js';
import {
  awaitHighWatermark,
  awaitLeader,
  electionTimeouts,
  expectWithin,
  healAndConverge,
  INSTANT_FAULT_KINDS,
  injectFault,
  keepMajorityRunnable,
  recordFault,
  type Scenario,
} from './scenarios.js';

/** How long one admin request may wait for its answer before the scenario asks again. */
const ANSWER_WAIT_ELECTION_TIMEOUTS = 4;
/** The admin client's AddRaftVoter timeout (the leader's deadline for the commit). */
const ADD_VOTER_TIMEOUT_MS = 5_000;

type VoterChange = { readonly kind: 'add' | 'remove'; readonly nodeId: number };

/** The request an admin client sends for `change`, with the node's current directory id. */
function voterChangeRequest(cluster: Cluster, change: VoterChange) {
  const voterDirectoryId = cluster.directoryIdOf(change.nodeId);
  if (change.kind === 'remove') {
    return {
      apiKey: ApiKeys.REMOVE_RAFT_VOTER.key,
      apiVersion: 0,
      data: ApiKeys.REMOVE_RAFT_VOTER.request.defaults({
        clusterId: null,
        voterId: change.nodeId,
        voterDirectoryId,
      }),
    };
  }
  return {
    apiKey: ApiKeys.ADD_RAFT_VOTER.key,
    apiVersion: 0,
    data: ApiKeys.ADD_RAFT_VOTER.request.defaults({
      clusterId: null,
      timeoutMs: ADD_VOTER_TIMEOUT_MS,
      voterId: change.nodeId,
      voterDirectoryId,
      listeners: [{ name: 'CONTROLLER', host: `node-${change.nodeId}`, port: 9093 }],
    }),
  };
}

/**
 * Sends `change` once to the current leader and waits for its answer: the error code, or
 * undefined when no leader took it or its answer did not come within the wait.
 */
async function sendOnce(cluster: Cluster, change: VoterChange): Promise<number | undefined> {
  const leader = cluster.leader();
  if (leader === undefined) return undefined;
  let answer: number | undefined;
  const sent = cluster.adminRequest(leader.nodeId, voterChangeRequest(cluster, change), (data) => {
    answer = (data as { errorCode: number }).errorCode;
  });
  if (!sent) return undefined;
  await cluster.runUntil(
    () => answer !== undefined,
    electionTimeouts(cluster, ANSWER_WAIT_ELECTION_TIMEOUTS),
  );
  return answer;
}

/** Tries before the workload pauses for a change that has not gone through yet. */
const LULL_AFTER_ATTEMPTS = 10;

/** Answers an admin client retries: the change may go through on a later try. */
const RETRIABLE = new Set<number>([Errors.REQUEST_TIMED_OUT.code, Errors.NOT_LEADER_OR_FOLLOWER.code]);

/**
 * Sends `change` to the leader until it is answered NONE, as an admin tool that retries would; a
 * non-retriable answer, or no NONE within the budget, is a violation. `during` runs between
 * tries (a fault racing the change). A retry after a lost answer can find the change already
 * made: DUPLICATE_VOTER for an add, VOTER_NOT_FOUND for a remove, which count as done.
 */
async function changeVoters(
  cluster: Cluster,
  change: VoterChange,
  during: (attempt: number) => Promise<void> = async () => {},
): Promise<void> {
  const budgetMs = electionTimeouts(cluster, 60);
  const deadlineMs = cluster.nowMs() + budgetMs;
  const alreadyDone = change.kind === 'add' ? Errors.DUPLICATE_VOTER.code : Errors.VOTER_NOT_FOUND.code;
  let resumeWorkload: (() => void) | undefined;
  try {
    for (let attempt = 0; cluster.violations.length === 0 && cluster.nowMs() < deadlineMs; attempt += 1) {
      const answer = await sendOnce(cluster, change);
      if (answer === Errors.NONE.code || (attempt > 0 && answer === alreadyDone)) return;
      if (answer !== undefined && !RETRIABLE.has(answer)) {
        cluster.violation(`${change.kind} voter ${change.nodeId}: answered ${answer}`);
        return;
      }
      // A quorum that replicates slower than the workload appends (one-byte fetches, a slow
      // disk) never lets a new voter catch up, in Kafka too: the operator waits for a lull.
      if (attempt === LULL_AFTER_ATTEMPTS && resumeWorkload === undefined) {
        resumeWorkload = cluster.pauseWorkload();
      }
      await during(attempt);
      await cluster.runFor(cluster.options.raftConfig.quorum.electionTimeoutMs);
    }
    if (cluster.violations.length === 0) {
      cluster.violation(`liveness: ${change.kind} voter ${change.nodeId} not done within ${budgetMs} ms`);
    }
  } finally {
    resumeWorkload?.();
  }
}

/** The leader's latest voter set (committed or not), or undefined without a leader. */
function leaderVoters(cluster: Cluster): readonly number[] | undefined {
  return cluster.leader()?.client.lastVoterSet().voterIds();
}

/**
 * Answers to a change sent in a fault window, where its outcome may be unknown: besides the
 * retriable ones, the change may have been made (or undone) by a try whose answer was lost.
 */
const ACCEPTABLE_UNDER_FAULTS = new Set<number>([
  Errors.NONE.code,
  ...RETRIABLE,
  Errors.DUPLICATE_VOTER.code,
  Errors.VOTER_NOT_FOUND.code,
]);

/**
 * Puts one random instant fault in place every 50-1,500 ms (simulated) until `endMs`, as the
 * random fault mix does, keeping a majority of the voters the leader knows able to run and no
node stopped for long.
 */
function scheduleFaultsUntil(cluster: Cluster, random: SimulationRandom, endMs: number): void {
  const stoppedSinceMs = new Map<number, number>();
  const next = (): void => {
    if (cluster.nowMs() >= endMs || cluster.violations.length > 0) return;
    const fault = random.between(0, INSTANT_FAULT_KINDS - 1);
    injectFault(cluster, random, fault);
    recordFault(cluster, fault);
    keepMajorityRunnable(cluster, random, leaderVoters(cluster) ?? cluster.voterIds);
    restartLongStopped(cluster, stoppedSinceMs);
    cluster.scheduler.schedule(random.between(50, 1_500), 'membership fault', next);
  };
  cluster.scheduler.schedule(random.between(50, 1_500), 'membership fault', next);
}

/** The fewest voters a removal in a fault window leaves. */
const MIN_VOTERS_UNDER_FAULTS = 3;

/** The longest a node stays stopped in a fault window (simulated time), in election timeouts. */
const MAX_STOPPED_ELECTION_TIMEOUTS = 8;

/**
 * Restarts the nodes stopped for longer than MAX_STOPPED_ELECTION_TIMEOUTS. Any node may vote
 * soon; and one left down for most of the window fetches so much once healed, one batch per
 * round trip with one-byte fetches, that it cannot converge within the liveness bound.
 */
function restartLongStopped(cluster: Cluster, stoppedSinceMs: Map<number, number>): void {
  const nowMs = cluster.nowMs();
  for (const nodeId of cluster.nodeIds()) {
    if (cluster.isRunning(nodeId)) {
      stoppedSinceMs.delete(nodeId);
      continue;
    }
    const sinceMs = stoppedSinceMs.get(nodeId);
    if (sinceMs === undefined) stoppedSinceMs.set(nodeId, nowMs);
    else if (nowMs - sinceMs > electionTimeouts(cluster, MAX_STOPPED_ELECTION_TIMEOUTS)) {
      cluster.start(nodeId);
      stoppedSinceMs.delete(nodeId);
    }
  }
}

/**
 * One change in a fault window: a node that is not a voter (as the leader sees it) is added,
 * a voter removed while at least three remain. Any answer outside ACCEPTABLE_UNDER_FAULTS is a
 * violation; no answer is not (the leader may be gone).
 */
async function changeUnderFaults(cluster: Cluster, random: SimulationRandom): Promise<void> {
  const voters = leaderVoters(cluster);
  if (voters === undefined) {
    await cluster.runFor(cluster.options.raftConfig.quorum.electionTimeoutMs);
    return;
  }
  const nodeId = random.pick(cluster.nodeIds());
  const isVoter = voters.includes(nodeId);
  // Two voters tolerate no fault: under the mix, one that must fetch its log again one batch per
  // round trip (one-byte fetches) would stall every commit past the liveness bound.
  if (isVoter && voters.length <= MIN_VOTERS_UNDER_FAULTS) return;
  const change: VoterChange = { kind: isVoter ? 'remove' : 'add', nodeId };
  const answer = await sendOnce(cluster, change);
  if (answer !== undefined && !ACCEPTABLE_UNDER_FAULTS.has(answer)) {
    cluster.violation(`${change.kind} voter ${nodeId} under faults: answered ${answer}`);
  }
}

/** Waits until the leader's latest voter set is `expected` and committed. */
async function awaitVoters(cluster: Cluster, expected: readonly number[]): Promise<void> {
  const text = [...expected].sort((left, right) => left - right).join(',');
  await expectWithin(
    cluster,
    `voters ${text} committed`,
    () => {
      const leader = cluster.leader();
      const highWatermark = leader?.highWatermark();
      if (leader === undefined || highWatermark === undefined || highWatermark === 0) return false;
      return (
        leader.client.lastVoterSet().voterIds().join(',') === text &&
        leader.client
          .voterSetAtOffset(highWatermark - 1)
          .voterIds()
          .join(',') === text
      );
    },
    electionTimeouts(cluster, 40),
  );
}

/** Starts `nodeIds` and the workload; returns the leader once they all hold offset 20. */
async function startAndCommit(cluster: Cluster, nodeIds: readonly number[]): Promise<number> {
  for (const nodeId of nodeIds) cluster.start(nodeId);
  cluster.startWorkload(10);
  const leader = await awaitLeader(cluster);
  await awaitHighWatermark(cluster, 20, nodeIds);
  return leader;
}

export const MEMBERSHIP_SCENARIOS: readonly Scenario[] = [
  {
    // Adds and removes sent to whoever leads while the random fault mix's instant faults come
    // and go (crashes that tear the unsynced tail, partitions, lossy links, slow disks); then,
    // healed, one more change must go through and every node converge.
    name: 'voter-changes-in-random-fault-mix',
    kraftVersion: 1,
    size: (random) => ({ voters: random.between(3, 5), observers: random.between(1, 2) }),
    async run(cluster, random: SimulationRandom) {
      await startAndCommit(cluster, cluster.nodeIds());
      const endMs = cluster.nowMs() + random.between(3_000, 10_000);
      scheduleFaultsUntil(cluster, random, endMs);
      while (cluster.nowMs() < endMs && cluster.violations.length === 0) {
        await changeUnderFaults(cluster, random);
        await cluster.runFor(random.between(0, 1_000));
      }
      await healAndConverge(cluster);
      // Healed: an observer (or, if every node votes, a voter) changes sides, and it commits.
      const voters = leaderVoters(cluster) ?? [];
      const observer = cluster.nodeIds().find((nodeId) => !voters.includes(nodeId));
      if (observer !== undefined) {
        await changeVoters(cluster, { kind: 'add', nodeId: observer });
        await awaitVoters(cluster, [...voters, observer]);
      } else {
        const removed = random.pick(voters);
        await changeVoters(cluster, { kind: 'remove', nodeId: removed });
        await awaitVoters(
          cluster,
          voters.filter((nodeId) => nodeId !== removed),
        );
      }
      await healAndConverge(cluster);
    },
  },
  {
    name: 'add-voter-once-it-caught-up',
    kraftVersion: 1,
    size: () => ({ voters: 3, observers: 1 }),
    async run(cluster) {
      await startAndCommit(cluster, cluster.voterIds);
      // Node 3 has not fetched at all: the leader must refuse to count it yet.
      const early = await sendOnce(cluster, { kind: 'add', nodeId: 3 });
      if (early !== undefined && early !== Errors.REQUEST_TIMED_OUT.code) {
        cluster.violation(`add voter 3 before it fetched: answered ${early}, not REQUEST_TIMED_OUT`);
      }
      cluster.start(3);
      await changeVoters(cluster, { kind: 'add', nodeId: 3 });
      await awaitVoters(cluster, [0, 1, 2, 3]);
      await healAndConverge(cluster);
    },
  },
  {
    name: 'remove-the-leader',
    kraftVersion: 1,
    size: () => ({ voters: 3, observers: 0 }),
    async run(cluster) {
      const leader = await startAndCommit(cluster, cluster.voterIds);
      await changeVoters(cluster, { kind: 'remove', nodeId: leader });
      const rest = cluster.voterIds.filter((nodeId) => nodeId !== leader);
      await awaitVoters(cluster, rest);
      // It resigned once the removal committed: the others elect a leader among themselves.
      await expectWithin(
        cluster,
        `a leader other than the removed ${leader}`,
        () => {
          const next = cluster.leader();
          return next !== undefined && next.nodeId !== leader;
        },
        electionTimeouts(cluster, 20),
      );
      await healAndConverge(cluster);
      if (cluster.violations.length === 0 && cluster.leader()?.nodeId === leader) {
        cluster.violation(`removed node ${leader} leads again`);
      }
    },
  },
  {
    name: 'voter-changes-race-leader-changes',
    kraftVersion: 1,
    size: () => ({ voters: 3, observers: 2 }),
    async run(cluster, random: SimulationRandom) {
      await startAndCommit(cluster, cluster.nodeIds());
      // Each try may lose its leader: crashed or cut off right after the request left.
      const disturbLeader = async (attempt: number): Promise<void> => {
        const leader = cluster.leader();
        if (leader === undefined || attempt > 2) return;
        if (random.chance(0.5)) {
          cluster.crash(leader.nodeId);
          await cluster.runFor(electionTimeouts(cluster, 2));
          cluster.start(leader.nodeId);
        } else {
          cluster.router.partitions.isolate(leader.nodeId, cluster.nodeIds());
          await cluster.runFor(electionTimeouts(cluster, 3));
          cluster.router.partitions.heal();
        }
      };
      const disturbAtOnce = (): void => {
        const leader = cluster.leader();
        if (leader !== undefined) cluster.crash(leader.nodeId);
        cluster.scheduler.schedule(electionTimeouts(cluster, 2), 'restart crashed leader', () => {
          for (const nodeId of cluster.nodeIds()) if (!cluster.isRunning(nodeId)) cluster.start(nodeId);
        });
      };
      // The request reaches the leader, which crashes in the same instant.
      const raced = cluster.leader();
      if (raced !== undefined) {
        cluster.adminRequest(raced.nodeId, voterChangeRequest(cluster, { kind: 'add', nodeId: 3 }), () => {});
        disturbAtOnce();
      }
      await changeVoters(cluster, { kind: 'add', nodeId: 3 }, disturbLeader);
      await awaitVoters(cluster, [0, 1, 2, 3]);
      await changeVoters(cluster, { kind: 'add', nodeId: 4 }, disturbLeader);
      await awaitVoters(cluster, [0, 1, 2, 3, 4]);
      const removed = random.pick([0, 1, 2]);
      await changeVoters(cluster, { kind: 'remove', nodeId: removed }, disturbLeader);
      await awaitVoters(
        cluster,
        [0, 1, 2, 3, 4].filter((nodeId) => nodeId !== removed),
      );
      await healAndConverge(cluster);
    },
  },
  {
    // controller.quorum.auto.join.enable: the observers add themselves once caught up, one at a
    // time (the leader refuses a second change while one is uncommitted), through a leader crash.
    name: 'observers-auto-join',
    kraftVersion: 1,
    autoJoin: true,
    size: (random) => ({ voters: 3, observers: random.between(1, 2) }),
    async run(cluster, random: SimulationRandom) {
      const leader = await startAndCommit(cluster, cluster.nodeIds());
      if (random.chance(0.5)) {
        cluster.crash(leader, random.pick(['drop-unsynced', 'tear-unsynced'] as const));
        cluster.scheduler.schedule(electionTimeouts(cluster, 2), 'restart crashed leader', () => {
          cluster.start(leader);
        });
      }
      // As in changeVoters: a quorum that replicates slower than it appends never lets an
      // observer catch up, so after a while the workload pauses for the joins.
      const everyone = cluster.nodeIds().join(',');
      const joined = () => cluster.leader()?.client.lastVoterSet().voterIds().join(',') === everyone;
      if (!(await cluster.runUntil(joined, electionTimeouts(cluster, 20)))) cluster.stopWorkload();
      await awaitVoters(cluster, cluster.nodeIds());
      await healAndConverge(cluster);
    },
  },
  {
    name: 're-add-voter-with-new-directory-id',
    kraftVersion: 1,
    size: () => ({ voters: 3, observers: 1 }),
    async run(cluster) {
      await startAndCommit(cluster, cluster.nodeIds());
      await changeVoters(cluster, { kind: 'add', nodeId: 3 });
      await awaitVoters(cluster, [0, 1, 2, 3]);
      await changeVoters(cluster, { kind: 'remove', nodeId: 3 });
      await awaitVoters(cluster, [0, 1, 2]);
      // Its disk is replaced (KAFKA-19850: shut it down before removing it, or here after): it
      // comes back as a new replica, an observer with a new directory id, and is added as such.
      cluster.replaceDisk(3);
      cluster.start(3);
      await changeVoters(cluster, { kind: 'add', nodeId: 3 });
      await awaitVoters(cluster, [0, 1, 2, 3]);
      const added = cluster.leader()?.client.lastVoterSet().voterNode(3)?.voterKey.directoryId;
      if (added?.equals(cluster.directoryIdOf(3)) !== true) {
        cluster.violation(`voter 3 was re-added with directory id ${added?.toString()}, not its new disk's`);
      }
      await healAndConverge(cluster);
    },
  },
];
