import { invariant } from '@kraft/protocol';
import type { ReplicaKey } from '../replica-key.js';

type VoteState = 'unrecorded' | 'granted' | 'rejected';

/**
 * Vote bookkeeping for one election (pre-vote or standard). Won with a majority of grants; lost
 * once the grants plus the still-unrecorded voters cannot reach a majority.
 */
export class EpochElection {
  private readonly votes = new Map<number, { key: ReplicaKey; state: VoteState }>();

  constructor(voters: readonly ReplicaKey[]) {
    for (const key of voters) this.votes.set(key.id, { key, state: 'unrecorded' });
  }

  /** Returns true if this is the first response recorded for the voter. */
  recordVote(voterId: number, granted: boolean): boolean {
    const entry = this.votes.get(voterId);
    invariant(entry !== undefined, () => `vote from ${voterId}, which is not a voter`);
    const wasUnrecorded = entry.state === 'unrecorded';
    if (!wasUnrecorded && granted !== (entry.state === 'granted')) {
      // A voter answering both ways in one election is a bug on its side; keep the first answer.
      return false;
    }
    entry.state = granted ? 'granted' : 'rejected';
    return wasUnrecorded;
  }

  isVoter(voterId: number): boolean {
    return this.votes.has(voterId);
  }

  majoritySize(): number {
    return Math.floor(this.votes.size / 2) + 1;
  }

  grantingVoters(): number[] {
    return this.idsIn('granted');
  }

  rejectingVoters(): number[] {
    return this.idsIn('rejected');
  }

  unrecordedVoters(): number[] {
    return this.idsIn('unrecorded');
  }

  isVoteGranted(): boolean {
    return this.grantingVoters().length >= this.majoritySize();
  }

  isVoteRejected(): boolean {
    return this.grantingVoters().length + this.unrecordedVoters().length < this.majoritySize();
  }

  private idsIn(state: VoteState): number[] {
    const ids: number[] = [];
    for (const [id, entry] of this.votes) if (entry.state === state) ids.push(id);
    return ids;
  }
}
