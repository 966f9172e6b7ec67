import { setTimeout as sleep } from 'node:timers/promises';
import {
  AddRaftVoterRequest,
  type AddRaftVoterResponseData,
  type ApiKey,
  ApiKeys,
  DescribeQuorumRequest,
  type DescribeQuorumResponseData,
  Errors,
  errorForCode,
  type FetchResponseData,
  type Logger,
  RemoveRaftVoterRequest,
  type RemoveRaftVoterResponseData,
  silentLogger,
  type Uuid,
} from '@kraft/protocol';
import { type HostAndPort, kraftApiRegistry, OutboundClient, type TlsContext } from '@kraft/transport-tcp';
import type { ControllerRegistration } from './controller-registration.js';
import { type ControllerAttempt, LeaderNotFoundError } from './leader-not-found-error.js';
import {
  LEADER_PROBE_MAX_VERSION,
  leaderHintOf,
  leaderProbeRequest,
  type QuorumPartition,
} from './leader-probe.js';
import { type QuorumInfo, readDescribeQuorumResponse } from './quorum-info.js';
import { QuorumRequestError } from './quorum-request-error.js';

export interface QuorumAdminClientOptions {
  /** Where to start looking for the leader, in this order. */
  readonly bootstrapControllers: readonly HostAndPort[];
  /** The partition DescribeQuorum and the leader probe name. */
  readonly partition: QuorumPartition;
  /** One request, connection set-up included. */
  readonly requestTimeoutMs: number;
  /** One call, every retry and backoff included. */
  readonly commandTimeoutMs: number;
  /** Connect over TLS with this context; plaintext when absent. */
  readonly tls?: TlsContext;
  readonly logger?: Logger;
  /** Milliseconds on a monotonic clock. */
  readonly clock?: () => number;
}

/** A leader's answer and where it came from. */
export interface LeaderAnswer<T> {
  readonly value: T;
  /** `host:port` of the leader that answered. */
  readonly endpoint: string;
}

/** A request only the leader answers, and how to tell its answer from a "not me". */
interface LeaderCall<T> {
  readonly api: ApiKey;
  readonly maxVersion: number;
  buildRequest(timeoutMs: number): unknown;
  /** `not-leader` sends the tool looking further; an error answer throws. */
  readAnswer(response: unknown, endpoint: string): { kind: 'not-leader' } | { kind: 'answer'; value: T };
}

type Attempt<T> =
  | { readonly kind: 'answer'; readonly value: T }
  /**
   * No answer here: why, and the leader's endpoint when the controller named one. `cutShort`: it
   * timed out in less than a request timeout, the command's deadline being closer.
   */
  | {
      readonly kind: 'no-answer';
      readonly outcome: string;
      readonly leader?: HostAndPort;
      readonly cutShort?: boolean;
    };

/** Rounds over the bootstrap list before giving up, whatever time is left. */
const MAX_ROUNDS = 10;
/** Sends per bootstrap controller in a round: it, the leader it names, and the leader that one names if leadership moved meanwhile. */
const MAX_SENDS_PER_BOOTSTRAP = 3;
/** Kafka's admin `retry.backoff.ms` and `retry.backoff.max.ms`: the wait between rounds doubles from 100 ms to 1 s. */
const RETRY_BACKOFF_MS = 100;
const RETRY_BACKOFF_MAX_MS = 1_000;
/**
 * The transport refuses requests to a destination for its reconnect backoff after a failure;
 * below the retry backoff, a controller retried in the next round is always past it.
 */
const RECONNECT_BACKOFF_MS = 50;
/** DescribeQuorum v2 adds directory ids and the nodes' listeners (KIP-853). */
const DESCRIBE_QUORUM_MAX_VERSION = 2;
/** AddRaftVoter v1 adds AckWhenCommitted, which Kafka's admin client leaves at its default (true). */
const ADD_RAFT_VOTER_MAX_VERSION = 1;
const REMOVE_RAFT_VOTER_MAX_VERSION = 0;

/** `host:port`, an IPv6 host in brackets. */
export function endpointText(endpoint: HostAndPort): string {
  return endpoint.host.includes(':')
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
}

/**
 * The transport completes a request it could not deliver or get answered with a synthetic
 * `{ errorCode }` and nothing else; a decoded response always carries every field of its schema.
 */
function transportFailureCode(response: unknown): number | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const keys = Object.keys(response);
  return keys.length === 1 && keys[0] === 'errorCode'
    ? (response as { errorCode: number }).errorCode
    : undefined;
}

/**
 * Kafka's admin client for the KRaft quorum APIs, over `@kraft/transport-tcp`, for
 * `kraft-metadata-quorum.sh`. Each connection negotiates versions with ApiVersions first (the
 * transport does, as Kafka's NetworkClient does). The leader is found from any controller
 * (ADR 0042): a request goes to a bootstrap controller; one that is not the leader says so, is
 * asked who leads with a Fetch probe, and the request follows its answer; else the next bootstrap
 * controller is tried, in rounds with Kafka's retry backoff, until the command's deadline or
 * `MAX_ROUNDS`. The error then lists every controller tried and its last outcome.
 */
export class QuorumAdminClient {
  private readonly options: QuorumAdminClientOptions;
  private readonly client: OutboundClient;
  private readonly logger: Logger;
  private readonly clock: () => number;
  /** One transport destination per endpoint, so a leader that is also a bootstrap controller keeps its connection. */
  private readonly destinationIds = new Map<string, number>();

  constructor(options: QuorumAdminClientOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? (() => performance.now());
    this.client = new OutboundClient({
      apis: kraftApiRegistry(),
      clientId: 'kraft-metadata-quorum',
      clientSoftwareName: 'kraft-metadata-quorum',
      config: {
        requestTimeoutMs: options.requestTimeoutMs,
        connectionSetupTimeoutMs: options.requestTimeoutMs,
        reconnectBackoffMs: RECONNECT_BACKOFF_MS,
        reconnectBackoffMaxMs: RECONNECT_BACKOFF_MS,
      },
      logger: this.logger,
      clock: this.clock,
      ...(options.tls === undefined ? {} : { tls: options.tls }),
    });
  }

  /** DescribeQuorum at the leader: the voters, observers, high watermark and the nodes' listeners. */
  describeQuorum(): Promise<LeaderAnswer<QuorumInfo>> {
    const { partition } = this.options;
    return this.callLeader<QuorumInfo>({
      api: ApiKeys.DESCRIBE_QUORUM,
      maxVersion: DESCRIBE_QUORUM_MAX_VERSION,
      buildRequest: () =>
        DescribeQuorumRequest.defaults({
          topics: [
            { topicName: partition.topicName, partitions: [{ partitionIndex: partition.partitionIndex }] },
          ],
        }),
      readAnswer: (response, endpoint) => {
        const outcome = readDescribeQuorumResponse(
          response as DescribeQuorumResponseData,
          partition,
          endpoint,
        );
        return outcome.kind === 'leader' ? { kind: 'answer', value: outcome.info } : outcome;
      },
    });
  }

  /**
   * AddRaftVoter as Kafka's admin client builds it: no cluster id, the request timeout as the
   * leader's wait for the new voter to catch up, the controller's id, directory id and listeners.
   */
  addRaftVoter(registration: ControllerRegistration): Promise<LeaderAnswer<void>> {
    return this.callLeader<void>({
      api: ApiKeys.ADD_RAFT_VOTER,
      maxVersion: ADD_RAFT_VOTER_MAX_VERSION,
      buildRequest: (timeoutMs) =>
        AddRaftVoterRequest.defaults({
          clusterId: null,
          timeoutMs,
          voterId: registration.controllerId,
          voterDirectoryId: registration.directoryId,
          listeners: registration.endpoints.map(({ name, host, port }) => ({ name, host, port })),
        }),
      readAnswer: (response, endpoint) =>
        voterChangeAnswer('AddRaftVoter', response as AddRaftVoterResponseData, endpoint),
    });
  }

  /** RemoveRaftVoter as Kafka's admin client builds it: no cluster id, the voter's id and directory id. */
  removeRaftVoter(voterId: number, voterDirectoryId: Uuid): Promise<LeaderAnswer<void>> {
    return this.callLeader<void>({
      api: ApiKeys.REMOVE_RAFT_VOTER,
      maxVersion: REMOVE_RAFT_VOTER_MAX_VERSION,
      buildRequest: () => RemoveRaftVoterRequest.defaults({ clusterId: null, voterId, voterDirectoryId }),
      readAnswer: (response, endpoint) =>
        voterChangeAnswer('RemoveRaftVoter', response as RemoveRaftVoterResponseData, endpoint),
    });
  }

  /** Closes every connection; a call still waiting completes with BROKER_NOT_AVAILABLE. */
  close(): void {
    this.client.close();
  }

  private async callLeader<T>(call: LeaderCall<T>): Promise<LeaderAnswer<T>> {
    const { commandTimeoutMs, bootstrapControllers } = this.options;
    const deadlineMs = this.clock() + commandTimeoutMs;
    const attempts = new Map<string, string>();
    const notFound = (reason: string): LeaderNotFoundError => {
      const tried: ControllerAttempt[] = [...attempts].map(([endpoint, outcome]) => ({ endpoint, outcome }));
      return new LeaderNotFoundError(call.api.name, reason, tried);
    };
    let backoffMs = RETRY_BACKOFF_MS;
    for (let round = 1; round <= MAX_ROUNDS; round += 1) {
      for (const bootstrap of bootstrapControllers) {
        let target: HostAndPort | undefined = bootstrap;
        for (let send = 0; target !== undefined && send < MAX_SENDS_PER_BOOTSTRAP; send += 1) {
          if (this.clock() >= deadlineMs) throw notFound(`within ${commandTimeoutMs} ms`);
          const attempt: Attempt<T> = await this.attempt(call, target, deadlineMs);
          const endpoint = endpointText(target);
          if (attempt.kind === 'answer') return { value: attempt.value, endpoint };
          this.logger.debug(
            { api: call.api.name, endpoint, round, outcome: attempt.outcome },
            'no answer from the leader',
          );
          // A last request cut short by the deadline says less than what this controller said before.
          if (attempt.cutShort !== true || !attempts.has(endpoint)) attempts.set(endpoint, attempt.outcome);
          target = attempt.leader;
        }
      }
      const remainingMs = deadlineMs - this.clock();
      if (remainingMs <= 0) throw notFound(`within ${commandTimeoutMs} ms`);
      if (round < MAX_ROUNDS) await sleep(Math.min(backoffMs, remainingMs));
      backoffMs = Math.min(backoffMs * 2, RETRY_BACKOFF_MAX_MS);
    }
    throw notFound(`in ${MAX_ROUNDS} rounds over the bootstrap controllers`);
  }

  /** One send of `call` to `target`; a controller that is not the leader is asked who is. */
  /** A request that timed out in less than a request timeout: the command's deadline was closer. */
  private isCutShort(failure: number, timeoutMs: number): boolean {
    return failure === Errors.REQUEST_TIMED_OUT.code && timeoutMs < this.options.requestTimeoutMs;
  }

  private async attempt<T>(
    call: LeaderCall<T>,
    target: HostAndPort,
    deadlineMs: number,
  ): Promise<Attempt<T>> {
    const endpoint = endpointText(target);
    const timeoutMs = Math.max(
      1,
      Math.min(this.options.requestTimeoutMs, Math.floor(deadlineMs - this.clock())),
    );
    const response = await this.send(
      target,
      call.api,
      call.maxVersion,
      call.buildRequest(timeoutMs),
      timeoutMs,
    );
    const failure = transportFailureCode(response);
    if (failure !== undefined) {
      return {
        kind: 'no-answer',
        outcome: describeTransportFailure(failure, call.api, timeoutMs),
        cutShort: this.isCutShort(failure, timeoutMs),
      };
    }
    const answer = call.readAnswer(response, endpoint);
    if (answer.kind === 'answer') return answer;
    const probe = await this.send(
      target,
      ApiKeys.FETCH,
      LEADER_PROBE_MAX_VERSION,
      leaderProbeRequest(this.options.partition),
      timeoutMs,
    );
    const notLeader = Errors.NOT_LEADER_OR_FOLLOWER.name;
    const probeFailure = transportFailureCode(probe);
    if (probeFailure !== undefined) {
      return {
        kind: 'no-answer',
        outcome: `${notLeader}; asking it for the leader failed: ${describeTransportFailure(probeFailure, ApiKeys.FETCH, timeoutMs)}`,
        cutShort: this.isCutShort(probeFailure, timeoutMs),
      };
    }
    const hint = leaderHintOf(probe as FetchResponseData);
    if (hint.kind === 'unknown')
      return { kind: 'no-answer', outcome: `${notLeader}; asked for the leader: ${hint.reason}` };
    const named = `node ${hint.leaderId} (epoch ${hint.leaderEpoch})`;
    if (hint.endpoint === undefined)
      return {
        kind: 'no-answer',
        outcome: `${notLeader}; it names ${named} as the leader, without its endpoint`,
      };
    const leaderEndpoint = endpointText(hint.endpoint);
    if (leaderEndpoint === endpoint)
      return {
        kind: 'no-answer',
        outcome: `${notLeader}; yet it names itself, ${named}, the leader: leadership is moving`,
      };
    return {
      kind: 'no-answer',
      outcome: `${notLeader}; it names ${named} at ${leaderEndpoint} the leader`,
      leader: hint.endpoint,
    };
  }

  private send(
    endpoint: HostAndPort,
    api: ApiKey,
    maxVersion: number,
    data: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    const destinationId = this.destinationFor(endpoint);
    return new Promise((resolve) => {
      // The transport completes every request exactly once: answered, failed or timed out at the deadline.
      this.client.send(destinationId, {
        apiKey: api.key,
        maxVersion,
        data,
        deadlineMs: this.clock() + timeoutMs,
        complete: resolve,
      });
    });
  }

  private destinationFor(endpoint: HostAndPort): number {
    const key = endpointText(endpoint);
    let destinationId = this.destinationIds.get(key);
    if (destinationId === undefined) {
      destinationId = this.destinationIds.size;
      this.destinationIds.set(key, destinationId);
      this.client.updateEndpoint(destinationId, endpoint);
    }
    return destinationId;
  }
}

/** AddRaftVoter and RemoveRaftVoter answer alike: NONE, NOT_LEADER_OR_FOLLOWER, or the leader's refusal. */
function voterChangeAnswer(
  apiName: string,
  response: AddRaftVoterResponseData | RemoveRaftVoterResponseData,
  endpoint: string,
): { kind: 'not-leader' } | { kind: 'answer'; value: undefined } {
  if (response.errorCode === Errors.NOT_LEADER_OR_FOLLOWER.code) return { kind: 'not-leader' };
  if (response.errorCode !== Errors.NONE.code)
    throw new QuorumRequestError(apiName, endpoint, response.errorCode, response.errorMessage);
  return { kind: 'answer', value: undefined };
}

function describeTransportFailure(errorCode: number, api: ApiKey, timeoutMs: number): string {
  const name = errorForCode(errorCode).name;
  if (errorCode === Errors.BROKER_NOT_AVAILABLE.code)
    return `cannot connect, or the connection was lost (${name})`;
  if (errorCode === Errors.REQUEST_TIMED_OUT.code) return `no answer within ${timeoutMs} ms (${name})`;
  if (errorCode === Errors.UNSUPPORTED_VERSION.code)
    return `it does not serve ${api.name} at a version this tool speaks (${name})`;
  return name;
}
