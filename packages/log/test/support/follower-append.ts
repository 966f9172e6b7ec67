import type { Records } from '@kraft/records';
import type { RaftLog } from '../../src/raft-log.js';
import type { LogAppendInfo } from '../../src/raft-log-types.js';

/**
 * `appendAsFollower` for tests whose records must be accepted: a rejection throws its error, so
 * the test fails at the append that went wrong instead of at a later assertion.
 */
export function appendAsFollowerOrThrow(log: RaftLog, records: Records, epoch: number): LogAppendInfo {
  const result = log.appendAsFollower(records, epoch);
  if (result.kind === 'rejected') throw result.error;
  return result.info;
}
