export { carryOutReadyAtOnce, type ReadyClient } from './carry-out-ready.js';
export { MockLog } from './mock-log.js';
export { MockNetworkChannel, type SentResponse } from './mock-network-channel.js';
export { MockQuorumStateStore } from './mock-quorum-state-store.js';
export { MockTime } from './mock-time.js';
export {
  MockableRandom,
  MockListener,
  RaftClientTestContext,
  RaftClientTestContextBuilder,
  recordsOf,
  TestAssertionError,
} from './raft-client-test-context.js';
export { readInWholeBufferFills } from './whole-buffer-fills.js';
