/**
 * RaftOutbox: what the core asks its driver to do, in the order it must happen (etcd raft's
 * `Ready`/`Advance`, carrying Kafka's messages and quorum-state data). The core never writes the
 * quorum-state file and never touches the network itself: `QuorumState` records the election
 * state to persist, the handlers record requests and responses, and the driver takes them with
 * `KafkaRaftClient.ready()`, carries them out, and reports each election write back with
 * `onElectionStatePersisted(id)`.
 *
 * Ordering guarantee: a message leaves only after every election state recorded before it is
 * durable. A granted vote, a candidacy's vote requests, a new leader's BeginQuorumEpoch and a
 * follower's first Fetch in a new epoch all depend on the election they follow; were one to leave
 * first and the node crash before the write, the node would restart having forgotten a vote or an
 * epoch that others acted on. So a message recorded after an unreported write is held until that
 * write (or a later one) is reported durable; messages recorded earlier leave at once.
 *
 * One write is in flight at a time. A write recorded while another is in flight replaces any
 * write still waiting: stored elections only move forward (the epoch never decreases, and within
 * an epoch a vote or a leader is only ever added), so the newest supersedes the older ones, and a
 * message held behind a superseded write is released with the newer one.
 *
 * A downloaded snapshot is made durable the same way (ADR 0039): the follower records its writer
 * (`installSnapshot`), the driver freezes it and writes the log start it sets off the event loop
 * (`RaftLog.freezeFetchedSnapshot`), then reports `onSnapshotInstallDurable(id)`, and only then
 * does the core announce and install it. One install is in flight at a time; the follower sends no
 * Fetch meanwhile, so it never reports an offset only that snapshot covers.
 */
import { invariant, type KRaftError } from '@kraft/protocol';
import type { InboundRequest, OutboundRequest } from './ports/network-channel.js';
import type { QuorumStateData, QuorumStateDataVersion } from './ports/quorum-state-store.js';
import type { OffsetAndEpoch, RawSnapshotWriter } from './ports/raft-log.js';
import type { RequestAndResponseData } from './rpc/typed-messages.js';

/** Most messages held behind an election write; beyond it a message is dropped (its sender or we time out). */
export const MAX_HELD_MESSAGES = 65_536;

/** An election state to write durably, then to report with `onElectionStatePersisted(id)`. */
export interface ElectionStateWrite {
  readonly id: number;
  readonly data: QuorumStateData;
  readonly dataVersion: QuorumStateDataVersion;
}

/**
 * A downloaded snapshot to make durable (`RaftLog.freezeFetchedSnapshot(writer)`), then to report
 * with `onSnapshotInstallDurable(id)`; the core installs it at the report.
 */
export interface SnapshotInstall {
  readonly id: number;
  readonly writer: RawSnapshotWriter;
}

/**
 * What the core hands to the IO layer to send: a new request to a peer, or the response to a
 * received request. `data` is typed where it is recorded (`MessageSink.sendResponse`, by api
 * key); here it is what the `NetworkChannel` port takes, which encodes it by the request's api key.
 */
export type OutboundMessage =
  | { readonly kind: 'request'; readonly request: OutboundRequest }
  | { readonly kind: 'response'; readonly request: InboundRequest; readonly data: unknown };

/**
 * The outcome of an operation the application started on the core (`readIndex`,
 * `transferLeadership`), named by the id the call returned. The driver settles its promise.
 */
export type OperationCompletion =
  /** A read barrier: applying every committed record below `readOffset` makes a read linearizable. */
  | { readonly kind: 'read-index'; readonly id: number; readonly readOffset: number }
  /** The transfer's target leads `leaderEpoch`, as this node sees it. */
  | { readonly kind: 'leadership-transfer'; readonly id: number; readonly leaderEpoch: number }
  | { readonly kind: 'failed'; readonly id: number; readonly error: KRaftError };

/** What the driver carries out after a call into the core; see `RaftOutbox` for the order. */
export interface RaftReady {
  /** Write it durably (it may take time: the core keeps running), then report it. */
  readonly electionState: ElectionStateWrite | undefined;
  /** Freeze it with `RaftLog.freezeFetchedSnapshot` (the core keeps running), then report it. */
  readonly snapshotInstall: SnapshotInstall | undefined;
  /** Free to leave now, in this order: every election state they depend on is durable. */
  readonly messages: readonly OutboundMessage[];
  /**
   * Operations finished since the last `ready()`. They depend on no election write: a read is
   * confirmed by fetches in an epoch whose election is durable, and a failure promises nothing.
   */
  readonly completions: readonly OperationCompletion[];
}

/** The write side of the outbox that the read-index and leadership-transfer paths see. */
export interface CompletionSink {
  complete(completion: OperationCompletion): void;
}

/** The write side of the outbox that the election state machine sees. */
export interface ElectionStateSink {
  persistElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): void;
}

/** The write side of the outbox that the snapshot download sees. */
export interface SnapshotInstallSink {
  installSnapshot(writer: RawSnapshotWriter): void;
  hasPendingSnapshotInstall(): boolean;
}

/** The write side of the outbox that the request handlers see. */
export interface MessageSink {
  sendRequest(request: OutboundRequest): void;
  /** The answer to a request: the response data of the request's own api, by its api key. */
  sendResponse(...[request, data]: RequestAndResponseData): void;
}

const NO_MESSAGES: readonly OutboundMessage[] = [];
const NO_COMPLETIONS: readonly OperationCompletion[] = [];

export class RaftOutbox implements ElectionStateSink, MessageSink, CompletionSink, SnapshotInstallSink {
  private lastRecordedWriteId = 0;
  private lastRecordedEpoch = -1;
  /** The newest recorded write not yet handed to the driver. */
  private waitingWrite: ElectionStateWrite | undefined;
  private inFlightWriteId: number | undefined;
  private durableWriteId = 0;
  /** Messages in recording order; `heldBehind[i]` is the write message `i` waits for (nondecreasing). */
  private messages: OutboundMessage[] = [];
  private heldBehind: number[] = [];
  private droppedMessages = 0;
  /** Bounded by the operations the core admits at once (pending reads, one transfer). */
  private completions: OperationCompletion[] = [];
  private lastSnapshotInstallId = 0;
  /** The recorded install not yet handed to the driver. */
  private waitingSnapshotInstall: SnapshotInstall | undefined;
  private inFlightSnapshotInstall: SnapshotInstall | undefined;

  persistElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): void {
    const previousEpoch = this.lastRecordedEpoch;
    invariant(
      data.leaderEpoch >= previousEpoch,
      () => `election state for epoch ${data.leaderEpoch} after one for epoch ${previousEpoch}`,
    );
    this.lastRecordedEpoch = data.leaderEpoch;
    this.lastRecordedWriteId += 1;
    this.waitingWrite = { id: this.lastRecordedWriteId, data, dataVersion };
  }

  sendRequest(request: OutboundRequest): void {
    this.record({ kind: 'request', request });
  }

  sendResponse(...[request, data]: RequestAndResponseData): void {
    this.record({ kind: 'response', request, data });
  }

  /**
   * The answer to a request of an api the core has no handler for, which no handler can answer:
   * `data` comes from that api's own response codec (the client's `answerUnhandledRequest`).
   */
  sendUnhandledApiResponse(request: InboundRequest, data: unknown): void {
    this.record({ kind: 'response', request, data });
  }

  complete(completion: OperationCompletion): void {
    this.completions.push(completion);
  }

  /** Records a finished download to make durable; at most one is pending (no Fetch leaves meanwhile). */
  installSnapshot(writer: RawSnapshotWriter): void {
    invariant(
      !this.hasPendingSnapshotInstall(),
      () => `snapshot install recorded while install ${this.lastSnapshotInstallId} is pending`,
    );
    this.lastSnapshotInstallId += 1;
    this.waitingSnapshotInstall = { id: this.lastSnapshotInstallId, writer };
  }

  /** A downloaded snapshot is recorded and not yet reported durable. */
  hasPendingSnapshotInstall(): boolean {
    return this.waitingSnapshotInstall !== undefined || this.inFlightSnapshotInstall !== undefined;
  }

  /** The driver made install `id` durable: returns the snapshot the core may now install. */
  onSnapshotInstallDurable(id: number): OffsetAndEpoch {
    const install = this.inFlightSnapshotInstall;
    invariant(
      install !== undefined && install.id === id,
      () => `snapshot install ${id} reported durable, but the one in flight is ${install?.id}`,
    );
    this.inFlightSnapshotInstall = undefined;
    return install.writer.snapshotId;
  }

  /** The election write to start (when none is in flight) and the messages free to leave. */
  takeReady(): RaftReady {
    let electionState: ElectionStateWrite | undefined;
    if (this.inFlightWriteId === undefined && this.waitingWrite !== undefined) {
      electionState = this.waitingWrite;
      this.waitingWrite = undefined;
      this.inFlightWriteId = electionState.id;
    }
    const snapshotInstall = this.waitingSnapshotInstall;
    if (snapshotInstall !== undefined) {
      this.waitingSnapshotInstall = undefined;
      this.inFlightSnapshotInstall = snapshotInstall;
    }
    let completions = NO_COMPLETIONS;
    if (this.completions.length > 0) {
      completions = this.completions;
      this.completions = [];
    }
    return { electionState, snapshotInstall, messages: this.takeReleasedMessages(), completions };
  }

  /** The driver made write `id` durable: messages waiting for it (or an older one) may leave. */
  onElectionStatePersisted(id: number): void {
    invariant(
      id === this.inFlightWriteId,
      () => `election write ${id} reported durable, but the write in flight is ${this.inFlightWriteId}`,
    );
    this.inFlightWriteId = undefined;
    this.durableWriteId = id;
  }

  /** True when `takeReady` has something to hand out. */
  hasReady(): boolean {
    if (this.completions.length > 0 || this.waitingSnapshotInstall !== undefined) return true;
    if (this.inFlightWriteId === undefined && this.waitingWrite !== undefined) return true;
    const first = this.heldBehind[0];
    return first !== undefined && first <= this.durableWriteId;
  }

  /** Election writes recorded but not yet reported durable (for state reports and shutdown). */
  hasPendingElectionState(): boolean {
    return this.waitingWrite !== undefined || this.inFlightWriteId !== undefined;
  }

  /** Messages dropped because too many were held behind a slow election write. */
  droppedMessageCount(): number {
    return this.droppedMessages;
  }

  private record(message: OutboundMessage): void {
    if (this.messages.length >= MAX_HELD_MESSAGES) {
      this.droppedMessages += 1;
      return;
    }
    this.messages.push(message);
    this.heldBehind.push(this.lastRecordedWriteId);
  }

  private takeReleasedMessages(): readonly OutboundMessage[] {
    let released = 0;
    while (
      released < this.heldBehind.length &&
      (this.heldBehind[released] as number) <= this.durableWriteId
    ) {
      released += 1;
    }
    if (released === 0) return NO_MESSAGES;
    if (released === this.messages.length) {
      const all = this.messages;
      this.messages = [];
      this.heldBehind = [];
      return all;
    }
    this.heldBehind.splice(0, released);
    return this.messages.splice(0, released);
  }
}
