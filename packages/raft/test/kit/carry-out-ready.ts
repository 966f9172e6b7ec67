import { IllegalStateError } from '@kraft/protocol';
import type { NetworkChannel } from '../../src/ports/network-channel.js';
import type { QuorumStateStore } from '../../src/ports/quorum-state-store.js';
import type {
  ElectionStateWrite,
  OperationCompletion,
  RaftReady,
  SnapshotInstall,
} from '../../src/raft-outbox.js';

/** The client side of the effects path, as a synchronous test harness drives it. */
export interface ReadyClient {
  ready(): RaftReady;
  hasReady(): boolean;
  onElectionStatePersisted(id: number, nowMs: number): void;
}

/** A client hands out at most one election write per round; more rounds than this is a loop. */
const MAX_READY_ROUNDS = 1000;

/**
 * What the driver does after a call into the client, in one synchronous step, for tests whose
 * store is durable when its write returns (MockQuorumStateStore): each election write `ready()`
 * names is written and reported at once, unless `holdWrite` keeps it (a slow disk; the caller
 * reports it later), the messages free to leave go to `channel` in order, and the completions
 * of read barriers and transfers to `completions` (when given), and the downloaded snapshots
 * to make durable to `snapshotInstalls` (required once one is handed out).
 */
export function carryOutReadyAtOnce(
  client: ReadyClient,
  store: Pick<QuorumStateStore, 'writeElectionState'>,
  channel: Pick<NetworkChannel, 'send' | 'sendResponse'>,
  nowMs: number,
  holdWrite?: (write: ElectionStateWrite) => boolean,
  completions?: OperationCompletion[],
  snapshotInstalls?: SnapshotInstall[],
): void {
  for (let round = 0; round < MAX_READY_ROUNDS; round += 1) {
    const ready = client.ready();
    for (const message of ready.messages) {
      if (message.kind === 'request') channel.send(message.request);
      else channel.sendResponse(message.request, message.data);
    }
    completions?.push(...ready.completions);
    // The freeze is asynchronous: the caller carries it out (RaftClientTestContext.poll). Dropped,
    // the follower would never fetch again.
    if (ready.snapshotInstall !== undefined) {
      if (snapshotInstalls === undefined) {
        throw new IllegalStateError('a downloaded snapshot to freeze, and no snapshotInstalls to take it');
      }
      snapshotInstalls.push(ready.snapshotInstall);
    }
    const write = ready.electionState;
    if (write !== undefined && holdWrite?.(write) !== true) {
      // The store is durable when the call returns; its promise carries nothing more.
      void store.writeElectionState(write.data, write.dataVersion);
      client.onElectionStatePersisted(write.id, nowMs);
    }
    if (!client.hasReady()) return;
  }
  throw new IllegalStateError(`client.ready() still had effects after ${MAX_READY_ROUNDS} rounds`);
}
