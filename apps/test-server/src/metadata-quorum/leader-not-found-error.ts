import { KRaftError } from '@kraft/protocol';

/** One controller the tool asked, and what became of it, for the error that lists them all. */
export interface ControllerAttempt {
  /** `host:port` as the tool connected to it. */
  readonly endpoint: string;
  /** The last outcome there: `NOT_LEADER_OR_FOLLOWER, leader unknown`, `cannot connect (BROKER_NOT_AVAILABLE)`. */
  readonly outcome: string;
}

/**
 * No controller answered as the quorum leader before the command's deadline or its retries ran
 * out. The message names every controller tried and its last outcome, so an operator can tell a
 * wrong address from an election in progress.
 */
export class LeaderNotFoundError extends KRaftError {
  readonly apiName: string;
  readonly attempts: readonly ControllerAttempt[];

  constructor(apiName: string, reason: string, attempts: readonly ControllerAttempt[]) {
    const tried = attempts.map((attempt) => `${attempt.endpoint} (${attempt.outcome})`).join(', ');
    super(
      'LEADER_NOT_FOUND',
      `no controller answered ${apiName} as the quorum leader ${reason}; tried ${tried}`,
    );
    this.apiName = apiName;
    this.attempts = attempts;
  }

  static isLeaderNotFoundError(value: unknown): value is LeaderNotFoundError {
    return KRaftError.isInstance(value) && value.code === 'LEADER_NOT_FOUND';
  }
}
