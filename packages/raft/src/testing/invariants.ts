import { recordsToBuffer } from '@kraft/records';
import type { RaftLog } from '../ports/raft-log.js';
import { type CommittedHistory, splitBatches } from './committed-history.js';

/** A running incarnation of a node, as the invariants read it. */
export interface RunningNodeView {
  readonly incarnation: number;
  readonly log: RaftLog;
  isLeader(): boolean;
  epoch(): number;
  highWatermark(): number | undefined;
  /**
   * kraft.version 1 only (dynamic voters, KIP-853): what the invariants read of the node's voter
   * sets. Undefined at kraft.version 0, where the static voters (`NodeView.isVoter`) are the set.
   */
  readonly dynamicVoters?: DynamicVotersView | undefined;
}

/** A node's voter sets from its log (kraft.version 1). */
export interface DynamicVotersView {
  /** The ids of the latest voter set: the one a leader counts its high watermark over. */
  voterIds(): readonly number[];
  /** How many voter changes lie at or above the node's high watermark (KIP-853: at most one). */
  uncommittedVoterChanges(): number;
  /** Whether a leader was a voter of the set it campaigned with: its log's set before its epoch started. */
  wasVoterAtEpochStart(): boolean;
}

/** A node across restarts. */
export interface NodeView {
  readonly nodeId: number;
  readonly isVoter: boolean;
  running(): RunningNodeView | undefined;
  /** The end offset known durable on its disk: the log's flushed offset while up, kept across a crash. */
  durableEndOffset(): number;
}

/** What the checker has verified of one running incarnation so far. */
interface IncarnationProgress {
  /** The highest high watermark this incarnation reported. */
  highWatermark: number | undefined;
  /** Committed batches below this offset were compared with history. */
  verifiedEnd: number;
  /** Epochs in which Leader Completeness was checked for this incarnation as leader. */
  readonly leaderEpochsChecked: Set<number>;
  /**
   * Dynamic voters: the voter ids the leader counted over at the last check, and its high
   * watermark when they took over. An offset committed before a voter change need not lie on a
   * majority of the new set (a removed voter may have held it), so a new set is checked from the
   * first high watermark above the one it found.
   */
  majorityVoters?: { voterIds: string; sinceHighWatermark: number };
}

/** Which invariants a scenario keeps (Kafka disables some after deliberate data loss). */
export interface InvariantSelection {
  readonly majorityReachedHighWatermark: boolean;
  readonly leaderHasCommittedData: boolean;
  readonly monotonicEpoch: boolean;
  /** A restarted node's log ends at or after the offset it last reported flushed. */
  readonly durableFlush: boolean;
}

export const ALL_INVARIANTS: InvariantSelection = {
  majorityReachedHighWatermark: true,
  leaderHasCommittedData: true,
  monotonicEpoch: true,
  durableFlush: true,
};

/**
 * The safety invariants checked after every event (kraft-behaviour.md §6 and TARGETS R1):
 * SingleLeader per epoch, MonotonicEpoch (persisted, across restarts), MonotonicHighWatermark
 * (per incarnation and for the newest leader), MajorityReachedHighWatermark (on flushed data),
 * committed prefixes byte-identical to the history, a new leader holds all committed data,
 * SnapshotAtLogStart. The listener contract and LeaderNeverLoadSnapshot are checked inside the
 * state machine's callbacks, where they happen.
 */
export class InvariantChecker {
  private readonly leaderByEpoch = new Map<number, number>();
  private readonly persistedEpochs = new Map<number, number>();
  /** Per running incarnation (a restart is a new view): no string keys built per event. */
  private readonly incarnations = new WeakMap<RunningNodeView, IncarnationProgress>();
  private newestLeaderHighWatermark = 0;
  private newestLeaderEpoch = 0;

  constructor(
    private readonly history: CommittedHistory,
    private readonly report: (violation: string) => void,
    public selection: InvariantSelection = ALL_INVARIANTS,
  ) {}

  /** Called for every durable election-state write, before it takes effect. */
  onPersistedElection(nodeId: number, epoch: number, leaderId: number): void {
    const previous = this.persistedEpochs.get(nodeId);
    if (this.selection.monotonicEpoch && previous !== undefined && epoch < previous) {
      this.report(`MonotonicEpoch: node ${nodeId} persisted epoch ${epoch} after ${previous}`);
    }
    this.persistedEpochs.set(nodeId, Math.max(epoch, previous ?? epoch));
    if (leaderId >= 0) this.claimLeadership(epoch, leaderId, `persisted by node ${nodeId}`);
  }

  /** A wiped disk legitimately forgets its epoch. */
  onDiskWiped(nodeId: number): void {
    this.persistedEpochs.delete(nodeId);
  }

  private claimLeadership(epoch: number, leaderId: number, source: string): void {
    const known = this.leaderByEpoch.get(epoch);
    if (known === undefined) this.leaderByEpoch.set(epoch, leaderId);
    else if (known !== leaderId) {
      this.report(`SingleLeader: epoch ${epoch} has leaders ${known} and ${leaderId} (${source})`);
    }
  }

  check(nodes: readonly NodeView[]): void {
    let newestLeader: NodeView | undefined;
    let newestLeaderView: RunningNodeView | undefined;
    let newestLeaderEpoch = 0;
    for (const node of nodes) {
      const view = node.running();
      if (view === undefined) continue;
      const progress = this.progressOf(view);
      const epoch = view.epoch();
      const persisted = this.persistedEpochs.get(node.nodeId);
      if (this.selection.monotonicEpoch && persisted !== undefined && epoch < persisted) {
        this.report(
          `MonotonicEpoch: node ${node.nodeId} runs in epoch ${epoch} below its persisted ${persisted}`,
        );
      }
      if (view.isLeader()) {
        this.claimLeadership(epoch, node.nodeId, `node ${node.nodeId} acts as leader`);
        if (newestLeaderView === undefined || epoch > newestLeaderEpoch) {
          newestLeader = node;
          newestLeaderView = view;
          newestLeaderEpoch = epoch;
        }
        this.checkNewLeader(node, view, progress, epoch);
      }
      this.checkHighWatermark(node, view, progress);
      this.checkCommittedPrefix(node, view, progress);
      this.checkSnapshots(node, view);
    }
    if (newestLeader !== undefined && newestLeaderView !== undefined) {
      this.checkNewestLeader(nodes, newestLeader, newestLeaderView);
    }
  }

  private progressOf(view: RunningNodeView): IncarnationProgress {
    let progress = this.incarnations.get(view);
    if (progress === undefined) {
      progress = { highWatermark: undefined, verifiedEnd: 0, leaderEpochsChecked: new Set<number>() };
      this.incarnations.set(view, progress);
    }
    return progress;
  }

  private checkHighWatermark(node: NodeView, view: RunningNodeView, progress: IncarnationProgress): void {
    const highWatermark = view.highWatermark();
    if (highWatermark === undefined) return;
    const previous = progress.highWatermark;
    if (previous !== undefined && highWatermark < previous) {
      this.report(
        `MonotonicHighWatermark: node ${node.nodeId} moved its high watermark from ${previous} to ${highWatermark}`,
      );
    }
    progress.highWatermark = Math.max(highWatermark, previous ?? 0);
    const logHighWatermark = view.log.highWatermark();
    if (logHighWatermark > view.log.endOffset()) {
      this.report(
        `node ${node.nodeId}: log high watermark ${logHighWatermark} beyond its end ${view.log.endOffset()}`,
      );
    }
  }

  private checkNewestLeader(nodes: readonly NodeView[], leader: NodeView, view: RunningNodeView): void {
    const highWatermark = view.highWatermark();
    if (highWatermark === undefined) return;
    // A deposed leader cut off in an older epoch legitimately lags: compare only leaders of the
    // newest epoch seen so far.
    const epoch = view.epoch();
    if (epoch >= this.newestLeaderEpoch) {
      if (highWatermark < this.newestLeaderHighWatermark) {
        this.report(
          `MonotonicHighWatermark: leader ${leader.nodeId} (epoch ${epoch}) has high watermark ` +
            `${highWatermark} below the ${this.newestLeaderHighWatermark} seen before`,
        );
      }
      this.newestLeaderEpoch = epoch;
      this.newestLeaderHighWatermark = Math.max(this.newestLeaderHighWatermark, highWatermark);
    }
    const dynamic = view.dynamicVoters;
    if (dynamic !== undefined) this.checkVoterChanges(leader, dynamic, epoch);
    if (!this.selection.majorityReachedHighWatermark) return;
    const isVoter =
      dynamic === undefined ? (node: NodeView) => node.isVoter : this.dynamicVoterTest(view, dynamic);
    if (isVoter === undefined) return;
    let voterCount = 0;
    let holding = 0;
    for (const node of nodes) {
      if (!isVoter(node)) continue;
      voterCount += 1;
      if (node.durableEndOffset() >= highWatermark) holding += 1;
    }
    if (holding * 2 <= voterCount) {
      const voters = nodes.filter(isVoter);
      this.report(
        `MajorityReachedHighWatermark: leader ${leader.nodeId} has high watermark ${highWatermark} but only ` +
          `${holding} of ${voterCount} voters flushed that far (${voters.map((node) => node.durableEndOffset()).join(',')})`,
      );
    }
  }

  /**
   * The membership test of MajorityReachedHighWatermark for a leader with dynamic voters: the set
   * it counts over now; undefined (skip) while its high watermark has not moved since that set
   * replaced the one of the last check.
   */
  private dynamicVoterTest(
    view: RunningNodeView,
    dynamic: DynamicVotersView,
  ): ((node: NodeView) => boolean) | undefined {
    const progress = this.progressOf(view);
    const highWatermark = view.highWatermark() ?? 0;
    const ids = dynamic.voterIds();
    const voterIds = ids.join(',');
    const last = progress.majorityVoters;
    if (last === undefined) {
      // The set this incarnation leads with: every high watermark it reports counts over it.
      progress.majorityVoters = { voterIds, sinceHighWatermark: -1 };
    } else if (last.voterIds !== voterIds) {
      progress.majorityVoters = { voterIds, sinceHighWatermark: highWatermark };
      return undefined;
    } else if (highWatermark <= last.sinceHighWatermark) {
      return undefined;
    }
    return (node) => ids.includes(node.nodeId);
  }

  /** KIP-853 on the newest leader: at most one voter change uncommitted; elected as a voter. */
  private checkVoterChanges(leader: NodeView, dynamic: DynamicVotersView, epoch: number): void {
    const uncommitted = dynamic.uncommittedVoterChanges();
    if (uncommitted > 1) {
      this.report(
        `OneVoterChangeAtATime: leader ${leader.nodeId} (epoch ${epoch}) has ${uncommitted} uncommitted voter changes`,
      );
    }
    if (!dynamic.wasVoterAtEpochStart()) {
      this.report(
        `SingleLeader: leader ${leader.nodeId} of epoch ${epoch} was not a voter of that epoch's voter set`,
      );
    }
  }

  /** Reads newly committed batches of `node` and compares them with history, byte for byte. */
  private checkCommittedPrefix(node: NodeView, view: RunningNodeView, progress: IncarnationProgress): void {
    const log = view.log;
    const highWatermark = Math.min(view.highWatermark() ?? 0, log.highWatermark());
    // Nothing newly committed (most events): no read, no allocation.
    if (progress.verifiedEnd >= highWatermark) return;
    let position = Math.max(progress.verifiedEnd, log.startOffset());
    while (position < highWatermark) {
      const bytes = recordsToBuffer(log.read(position, 'committed').records);
      if (bytes.length === 0) {
        this.report(
          `node ${node.nodeId}: committed read at ${position} is empty below the high watermark ${highWatermark}`,
        );
        break;
      }
      for (const { header, bytes: batch } of splitBatches(bytes)) {
        if (header.baseOffset !== position) {
          this.report(
            `node ${node.nodeId}: committed read expected a batch at ${position}, got ${header.baseOffset}`,
          );
          return;
        }
        if (header.lastOffset >= highWatermark) {
          this.report(
            `node ${node.nodeId}: committed read returned batch ${header.baseOffset}..${header.lastOffset} ` +
              `past the high watermark ${highWatermark}`,
          );
          return;
        }
        const disagreement = this.history.checkBatch(header, batch);
        if (disagreement !== undefined)
          this.report(`ConsistentCommittedData: node ${node.nodeId}: ${disagreement}`);
        position = header.lastOffset + 1;
      }
    }
    progress.verifiedEnd = position;
  }

  /** A new leader's log must hold every batch committed so far (Leader Completeness). */
  private checkNewLeader(
    node: NodeView,
    view: RunningNodeView,
    progress: IncarnationProgress,
    epoch: number,
  ): void {
    if (progress.leaderEpochsChecked.has(epoch) || !this.selection.leaderHasCommittedData) return;
    progress.leaderEpochsChecked.add(epoch);
    const log = view.log;
    const committedEnd = this.history.endOffset();
    if (log.endOffset() < committedEnd) {
      this.report(
        `LeaderHasAllAckedValues: node ${node.nodeId} leads epoch ${epoch} with log end ${log.endOffset()} ` +
          `below the committed end ${committedEnd}`,
      );
      return;
    }
    let position = log.startOffset();
    while (position < committedEnd) {
      const bytes = recordsToBuffer(log.read(position, 'uncommitted').records);
      if (bytes.length === 0) break;
      for (const { header, bytes: batch } of splitBatches(bytes)) {
        if (header.baseOffset >= committedEnd) return;
        const known = this.history.batchAt(header.baseOffset);
        if (known !== undefined && !known.equals(batch)) {
          this.report(
            `LeaderHasAllAckedValues: node ${node.nodeId} leads epoch ${epoch} with a different batch at ${header.baseOffset}`,
          );
          return;
        }
        position = header.lastOffset + 1;
      }
    }
  }

  private checkSnapshots(node: NodeView, view: RunningNodeView): void {
    const log = view.log;
    const startOffset = log.startOffset();
    const earliest = log.earliestSnapshotId();
    const latest = log.latestSnapshotId();
    if (earliest === undefined) {
      if (startOffset > 0)
        this.report(`SnapshotAtLogStart: node ${node.nodeId} starts at ${startOffset} without a snapshot`);
      return;
    }
    if (startOffset > earliest.offset) {
      this.report(
        `SnapshotAtLogStart: node ${node.nodeId} log start ${startOffset} is past its earliest snapshot ${earliest.offset}`,
      );
    }
    if (startOffset > 0 && earliest.offset !== startOffset) {
      this.report(
        `SnapshotAtLogStart: node ${node.nodeId} log start ${startOffset} is not at its earliest snapshot ${earliest.offset}`,
      );
    }
    if (latest !== undefined && latest.offset < startOffset) {
      this.report(
        `SnapshotAtLogStart: node ${node.nodeId} latest snapshot ${latest.offset} is below log start ${startOffset}`,
      );
    }
    const validation = log.validateOffsetAndEpoch(earliest.offset, earliest.epoch);
    if (validation.kind !== 'valid') {
      this.report(
        `SnapshotAtLogStart: node ${node.nodeId} earliest snapshot ${earliest.offset}/${earliest.epoch} ` +
          `validates as ${validation.kind}`,
      );
    }
  }
}
