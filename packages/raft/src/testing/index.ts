/**
 * `@kraft/raft/testing`: the deterministic simulated cluster, for testing a state machine on raft
 * under partitions, crashes and a lossy network. See `SimulatedCluster`.
 */
export type { LinkConditions } from './network-filters.js';
export {
  type Proposal,
  SimulatedCluster,
  type SimulatedClusterOptions,
  type SimulatedLogOptions,
  type SimulatedNodeContext,
  type SimulatedSnapshot,
  SimulationViolationError,
} from './simulated-cluster.js';
export type { TraceRecorder } from './trace-recorder.js';
