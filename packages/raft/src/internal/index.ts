// @kraft/raft/internal: the core's building blocks (quorum states, timers, the accumulator, the
// request manager, ...), published as the C4.10 /internal subpath for advanced users who build on
// the core; it follows no semver promise. Nothing in this repository imports it: the package's own
// tests and simulator use relative paths, and tooling/scripts/check-layers.ts forbids it elsewhere.
export { ElectionState } from '../election-state.js';
export { strictExponentialElectionBackoffMs } from '../handlers/quorum-epoch-handler.js';
export {
  BatchAccumulator,
  type CompletedBatch,
  MAX_BUFFERED_BYTES,
  MAX_NUMBER_OF_BATCHES,
  TARGET_BATCH_SIZE_BYTES,
} from '../internals/batch-accumulator.js';
export { EpochElection } from '../internals/epoch-election.js';
export { Timer } from '../internals/timer.js';
export { parseQuorumState, serializeQuorumState } from '../io/file-quorum-state-store.js';
export { QuorumState, type QuorumStateOptions } from '../quorum-state.js';
export { MAX_HELD_MESSAGES } from '../raft-outbox.js';
export { RequestManager } from '../request-manager.js';
export { CandidateState } from '../states/candidate-state.js';
export type { EpochState, StateName } from '../states/epoch-state.js';
export { FollowerState } from '../states/follower-state.js';
export { LeaderState, type ReplicaState } from '../states/leader-state.js';
export { ProspectiveState } from '../states/prospective-state.js';
export { ResignedState } from '../states/resigned-state.js';
export { UnattachedState } from '../states/unattached-state.js';
