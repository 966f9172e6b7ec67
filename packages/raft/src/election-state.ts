import { invariant, Uuid } from '@kraft/protocol';
import type { QuorumStateData, QuorumStateDataVersion } from './ports/quorum-state-store.js';
import { ReplicaKey } from './replica-key.js';

/**
 * What the quorum-state file remembers: the epoch, the leader if known, and the vote cast in this
 * epoch. Immutable. `voters` is written only in data version 0 (Kafka's `currentVoters`).
 */
export class ElectionState {
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedKey: ReplicaKey | undefined;
  readonly voters: readonly number[];

  private constructor(
    epoch: number,
    leaderId: number | undefined,
    votedKey: ReplicaKey | undefined,
    voters: readonly number[],
  ) {
    invariant(Number.isSafeInteger(epoch) && epoch >= 0, () => `invalid epoch ${epoch}`);
    this.epoch = epoch;
    this.leaderId = leaderId;
    this.votedKey = votedKey;
    this.voters = voters;
  }

  static withVotedCandidate(epoch: number, votedKey: ReplicaKey, voters: readonly number[]): ElectionState {
    return new ElectionState(epoch, undefined, votedKey, voters);
  }

  /** The voted key survives a leader election within the epoch (Kafka keeps it). */
  static withElectedLeader(
    epoch: number,
    leaderId: number,
    votedKey: ReplicaKey | undefined,
    voters: readonly number[],
  ): ElectionState {
    invariant(leaderId >= 0, () => `invalid leader id ${leaderId}`);
    return new ElectionState(epoch, leaderId, votedKey, voters);
  }

  static withUnknownLeader(epoch: number, voters: readonly number[]): ElectionState {
    return new ElectionState(epoch, undefined, undefined, voters);
  }

  /** An unattached state that may remember a leader id (without endpoints) or a vote. */
  static of(
    epoch: number,
    leaderId: number | undefined,
    votedKey: ReplicaKey | undefined,
    voters: readonly number[],
  ): ElectionState {
    return new ElectionState(epoch, leaderId, votedKey, voters);
  }

  isLeader(nodeId: number | undefined): boolean {
    return nodeId !== undefined && this.leaderId === nodeId;
  }

  hasLeader(): boolean {
    return this.leaderId !== undefined;
  }

  hasVoted(): boolean {
    return this.votedKey !== undefined;
  }

  isVotedCandidate(key: ReplicaKey): boolean {
    return this.votedKey?.matches(key) === true && key.matches(this.votedKey);
  }

  toQuorumStateData(dataVersion: QuorumStateDataVersion): QuorumStateData {
    return {
      leaderId: this.leaderId ?? -1,
      leaderEpoch: this.epoch,
      votedId: this.votedKey?.id ?? -1,
      votedDirectoryId: dataVersion >= 1 ? (this.votedKey?.directoryIdOrZero() ?? Uuid.ZERO) : Uuid.ZERO,
      currentVoters: dataVersion === 0 ? [...this.voters] : null,
    };
  }

  static fromQuorumStateData(data: QuorumStateData): ElectionState {
    invariant(
      Number.isSafeInteger(data.leaderEpoch) && data.leaderEpoch >= -1,
      () => `corrupt quorum state: epoch ${data.leaderEpoch}`,
    );
    const votedKey = data.votedId >= 0 ? ReplicaKey.of(data.votedId, data.votedDirectoryId) : undefined;
    const leaderId = data.leaderId >= 0 ? data.leaderId : undefined;
    return new ElectionState(Math.max(0, data.leaderEpoch), leaderId, votedKey, data.currentVoters ?? []);
  }

  equals(other: ElectionState): boolean {
    const sameVote =
      this.votedKey === undefined
        ? other.votedKey === undefined
        : other.votedKey?.equals(this.votedKey) === true;
    return this.epoch === other.epoch && this.leaderId === other.leaderId && sameVote;
  }

  toString(): string {
    return `ElectionState(epoch=${this.epoch}, leaderId=${this.leaderId ?? 'none'}, votedKey=${this.votedKey?.toString() ?? 'none'})`;
  }
}
