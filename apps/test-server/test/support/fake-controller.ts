import {
  ApiKeys,
  type DescribeQuorumResponseData,
  Errors,
  type FetchRequestData,
  Uuid,
} from '@kraft/protocol';
import {
  type ApiRegistry,
  type InboundCall,
  InboundServer,
  kraftApiRegistry,
  type TlsContext,
} from '@kraft/transport-tcp';

const TOPIC_NAME = '__raft_performance_test';
const TOPIC_ID = Uuid.fromLongs(0n, 2n);

/** One voter or observer of a scripted leader's DescribeQuorum answer. */
export interface FakeReplica {
  readonly id: number;
  readonly directoryId?: Uuid;
  readonly logEndOffset: bigint;
  readonly lastFetchTimestamp?: bigint;
  readonly lastCaughtUpTimestamp?: bigint;
}

/** What a leader reports; endpoints per node go into DescribeQuorum v2's `nodes`. */
export interface FakeQuorum {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: bigint;
  readonly voters: readonly FakeReplica[];
  readonly observers?: readonly FakeReplica[];
  readonly nodes?: readonly {
    readonly id: number;
    readonly name: string;
    readonly host: string;
    readonly port: number;
  }[];
}

/** How the fake answers: as the leader, as a follower (naming a leader or none), or not at all. */
export type FakeRole =
  | {
      readonly kind: 'leader';
      readonly quorum: FakeQuorum;
      /** The answer to AddRaftVoter and RemoveRaftVoter; NONE when absent. */
      readonly voterChange?: { readonly errorCode: number; readonly errorMessage: string };
    }
  | {
      readonly kind: 'follower';
      readonly leader?: {
        readonly id: number;
        readonly epoch: number;
        readonly host: string;
        readonly port: number;
      };
    }
  /** Reads requests and never answers them: a hung controller. */
  | { readonly kind: 'silent' };

/** A request the fake received, as decoded at the version negotiated. */
export interface ReceivedRequest {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly clientId: string;
  readonly data: unknown;
}

/**
 * A controller listener on 127.0.0.1 port 0 (the real transport, ApiVersions included) that
 * answers the quorum APIs from a script, as the test server's raft client answers them: a follower
 * says NOT_LEADER_OR_FOLLOWER and, to a Fetch of epoch 0, FENCED_LEADER_EPOCH with the leader's
 * id, epoch and endpoint.
 */
export class FakeController {
  readonly received: ReceivedRequest[] = [];
  role: FakeRole;

  private constructor(
    private readonly server: InboundServer,
    readonly port: number,
    role: FakeRole,
  ) {
    this.role = role;
  }

  static async start(
    role: FakeRole,
    options: { readonly tls?: TlsContext; readonly apis?: ApiRegistry } = {},
  ): Promise<FakeController> {
    let controller: FakeController | undefined;
    const server = new InboundServer({
      listeners: [
        {
          name: 'CONTROLLER',
          host: '127.0.0.1',
          port: 0,
          securityProtocol: options.tls === undefined ? 'PLAINTEXT' : 'SSL',
        },
      ],
      apis: options.apis ?? kraftApiRegistry(),
      handler: { handleRequest: (call) => controller?.answer(call) },
      ...(options.tls === undefined ? {} : { tls: options.tls }),
    });
    const [bound] = await server.start();
    controller = new FakeController(server, bound!.port, role);
    return controller;
  }

  /** `127.0.0.1:<port>`. */
  get endpoint(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The requests received with `apiKey`. */
  requestsOf(apiKey: number): ReceivedRequest[] {
    return this.received.filter((request) => request.apiKey === apiKey);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private answer(call: InboundCall): void {
    const { requestApiKey: apiKey, requestApiVersion: apiVersion } = call.header;
    this.received.push({ apiKey, apiVersion, clientId: call.clientId, data: call.data });
    const role = this.role;
    if (role.kind === 'silent') return;
    if (apiKey === ApiKeys.DESCRIBE_QUORUM.key) call.respond(describeQuorumAnswer(role, apiVersion));
    else if (apiKey === ApiKeys.FETCH.key)
      call.respond(fetchAnswer(role, call.data as FetchRequestData, this.port));
    else if (apiKey === ApiKeys.ADD_RAFT_VOTER.key || apiKey === ApiKeys.REMOVE_RAFT_VOTER.key) {
      const change =
        role.kind === 'follower'
          ? { errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code, errorMessage: '' }
          : (role.voterChange ?? { errorCode: Errors.NONE.code, errorMessage: '' });
      call.respond({ throttleTimeMs: 0, ...change });
    }
  }
}

/** As the test server's leader answers: below v2 without directory ids and nodes, which v2 added. */
function describeQuorumAnswer(
  role: Exclude<FakeRole, { kind: 'silent' }>,
  apiVersion: number,
): DescribeQuorumResponseData {
  const partition = (errorCode: number, quorum?: FakeQuorum) => {
    const replica = (entry: FakeReplica) => ({
      replicaId: entry.id,
      replicaDirectoryId: apiVersion >= 2 ? (entry.directoryId ?? Uuid.ZERO) : Uuid.ZERO,
      logEndOffset: entry.logEndOffset,
      lastFetchTimestamp: entry.lastFetchTimestamp ?? -1n,
      lastCaughtUpTimestamp: entry.lastCaughtUpTimestamp ?? -1n,
    });
    return {
      partitionIndex: 0,
      errorCode,
      errorMessage: errorCode === Errors.NONE.code ? '' : Errors.NOT_LEADER_OR_FOLLOWER.defaultMessage,
      // A follower leaves these at the data class's zero, as Kafka's getPartitionLevelErrorResponse does.
      leaderId: quorum?.leaderId ?? 0,
      leaderEpoch: quorum?.leaderEpoch ?? 0,
      highWatermark: quorum?.highWatermark ?? 0n,
      currentVoters: (quorum?.voters ?? []).map(replica),
      observers: (quorum?.observers ?? []).map(replica),
    };
  };
  const quorum = role.kind === 'leader' ? role.quorum : undefined;
  const errorCode = quorum === undefined ? Errors.NOT_LEADER_OR_FOLLOWER.code : Errors.NONE.code;
  return ApiKeys.DESCRIBE_QUORUM.response.defaults({
    topics: [{ topicName: TOPIC_NAME, partitions: [partition(errorCode, quorum)] }],
    nodes: (apiVersion >= 2 ? (quorum?.nodes ?? []) : []).map((node) => ({
      nodeId: node.id,
      listeners: [{ name: node.name, host: node.host, port: node.port }],
    })),
  });
}

/**
 * The test server's answer to a Fetch of epoch 0: FENCED_LEADER_EPOCH naming the leader (a leader
 * names itself, at `ownPort`), or NOT_LEADER_OR_FOLLOWER when it knows none.
 */
function fetchAnswer(
  role: Exclude<FakeRole, { kind: 'silent' }>,
  request: FetchRequestData,
  ownPort: number,
) {
  const leader =
    role.kind === 'follower'
      ? role.leader
      : { id: role.quorum.leaderId, epoch: role.quorum.leaderEpoch, host: '127.0.0.1', port: ownPort };
  const asked = request.topics[0]?.partitions[0]?.currentLeaderEpoch ?? -1;
  const errorCode =
    leader !== undefined && asked < leader.epoch
      ? Errors.FENCED_LEADER_EPOCH.code
      : Errors.NOT_LEADER_OR_FOLLOWER.code;
  return ApiKeys.FETCH.response.defaults({
    responses: [
      {
        topic: TOPIC_NAME,
        topicId: TOPIC_ID,
        partitions: [
          {
            partitionIndex: 0,
            errorCode,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: 0n,
            divergingEpoch: { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: leader?.id ?? -1, leaderEpoch: leader?.epoch ?? 0 },
            snapshotId: { endOffset: -1n, epoch: -1 },
            abortedTransactions: [],
            preferredReadReplica: -1,
            records: null,
          },
        ],
      },
    ],
    nodeEndpoints:
      leader === undefined ? [] : [{ nodeId: leader.id, host: leader.host, port: leader.port, rack: null }],
  });
}
