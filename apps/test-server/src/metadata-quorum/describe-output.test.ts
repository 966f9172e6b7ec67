import { Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import {
  formatEndpoint,
  formatQuorumStatus,
  formatReplicationTable,
  relativeTimeMs,
} from './describe-output.js';
import type { QuorumInfo, ReplicaState } from './quorum-info.js';

const T = 1_700_000_000_000n;

function replica(
  replicaId: number,
  directoryId: string | undefined,
  logEndOffset: bigint,
  lastFetchTimestamp?: bigint,
  lastCaughtUpTimestamp?: bigint,
): ReplicaState {
  return {
    replicaId,
    replicaDirectoryId: directoryId === undefined ? Uuid.ZERO : Uuid.fromString(directoryId),
    logEndOffset,
    lastFetchTimestamp,
    lastCaughtUpTimestamp,
  };
}

const QUORUM: QuorumInfo = {
  leaderId: 1,
  leaderEpoch: 3,
  highWatermark: 1234n,
  voters: [
    replica(1, 'b8tRS7h4TJ2Vt43Dp85v2A', 1240n, T + 500n, T + 500n),
    replica(2, 'Nkij_D9XRiYKNb41SiJo7Q', 1238n, T + 400n, T + 300n),
    replica(3, undefined, 1200n, T + 100n, T),
  ],
  observers: [replica(4, '4-e97nI7eHPYKfEDtW8rtQ', 1100n)],
  nodes: new Map([
    [1, [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092 }]],
    [2, [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9093 }]],
    [
      3,
      [
        { name: 'CONTROLLER', host: '::1', port: 9094 },
        { name: 'SSL', host: 'node-3', port: 9095 },
      ],
    ],
  ]),
};

// Kafka's MetadataQuorumCommand: "ClusterId:              " + ... + "\nCurrentObservers:       " + ...
const KAFKA_STATUS_LABELS = [
  'ClusterId:              ',
  'LeaderId:               ',
  'LeaderEpoch:            ',
  'HighWatermark:          ',
  'MaxFollowerLag:         ',
  'MaxFollowerLagTimeMs:   ',
  'CurrentVoters:          ',
  'CurrentObservers:       ',
];

describe('describe --status output', () => {
  it("prints Kafka's eight lines, voters with directory ids and endpoints, the zero directory id as null", () => {
    const values = [
      'AAAAAAAAAAAAAAAAAAAAAA',
      '1',
      '3',
      '1234',
      '40',
      '500',
      '[{"id": 1, "directoryId": "b8tRS7h4TJ2Vt43Dp85v2A", "endpoints": ["PLAINTEXT://127.0.0.1:9092"]}, ' +
        '{"id": 2, "directoryId": "Nkij_D9XRiYKNb41SiJo7Q", "endpoints": ["PLAINTEXT://127.0.0.1:9093"]}, ' +
        '{"id": 3, "directoryId": null, "endpoints": ["CONTROLLER://[::1]:9094", "SSL://node-3:9095"]}]',
      '[{"id": 4, "directoryId": "4-e97nI7eHPYKfEDtW8rtQ"}]',
    ];
    expect(formatQuorumStatus(Uuid.ZERO.toString(), QUORUM)).toEqual(
      KAFKA_STATUS_LABELS.map((label, index) => label + values[index]),
    );
  });

  it("matches the patterns of Kafka's own MetadataQuorumCommandTest", () => {
    const lines = formatQuorumStatus(Uuid.ZERO.toString(), { ...QUORUM, observers: [] });
    expect(lines[0]).toMatch(/^ClusterId:\s+\S{22}$/);
    expect(lines[1]).toMatch(/^LeaderId:\s+\d+$/);
    expect(lines[2]).toMatch(/^LeaderEpoch:\s+\d+$/);
    expect(lines[3]).toMatch(/^HighWatermark:\s+-?\d+$/);
    expect(lines[4]).toMatch(/^MaxFollowerLag:\s+\d+$/);
    expect(lines[5]).toMatch(/^MaxFollowerLagTimeMs:\s+-?\d+$/);
    expect(lines[6]).toMatch(
      /^CurrentVoters:\s+\[\{"id":\s+\d+,\s+"directoryId":\s+\S+,\s+"endpoints":\s+\["\S+:\/\/\[?\S+]?:\d+",?.*]/,
    );
    expect(lines[7]).toMatch(/^CurrentObservers:\s+\[]$/);
  });

  it('reports lag 0 when the leader is the first of the least advanced voters, and -1 ms when a caught-up time is unknown', () => {
    const caughtUp: QuorumInfo = {
      ...QUORUM,
      voters: [
        replica(1, undefined, 50n, T, T),
        replica(2, undefined, 50n, T, T - 10n),
        replica(3, undefined, 60n),
      ],
    };
    expect(formatQuorumStatus('c', caughtUp).slice(4, 6)).toEqual([
      'MaxFollowerLag:         0',
      'MaxFollowerLagTimeMs:   0',
    ]);
    const unknownTime: QuorumInfo = {
      ...QUORUM,
      voters: [replica(1, undefined, 50n, T, T), replica(2, undefined, 20n)],
    };
    expect(formatQuorumStatus('c', unknownTime).slice(4, 6)).toEqual([
      'MaxFollowerLag:         30',
      'MaxFollowerLagTimeMs:   -1',
    ]);
  });

  it('fails clearly when the leader is not among the voters it reported', () => {
    expect(() => formatQuorumStatus('c', { ...QUORUM, leaderId: 9 })).toThrow(
      'the leader 9 is not among the voters it reported ([1, 2, 3])',
    );
  });
});

describe('describe --replication output', () => {
  it("prints Kafka's table: leader, followers, observers; columns padded to the widest value, each followed by a tab", () => {
    const lines = formatReplicationTable(QUORUM, { humanReadable: false, wallClockMs: () => 0 });
    expect(lines).toEqual([
      'NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t',
      '1     \tb8tRS7h4TJ2Vt43Dp85v2A\t1240        \t0  \t1700000000500     \t1700000000500        \tLeader  \t',
      '2     \tNkij_D9XRiYKNb41SiJo7Q\t1238        \t2  \t1700000000400     \t1700000000300        \tFollower\t',
      '3     \tAAAAAAAAAAAAAAAAAAAAAA\t1200        \t40 \t1700000000100     \t1700000000000        \tFollower\t',
      '4     \t4-e97nI7eHPYKfEDtW8rtQ\t1100        \t140\t-1                \t-1                   \tObserver\t',
    ]);
    // Kafka's MetadataQuorumCommandTest patterns.
    expect(lines[0]).toMatch(
      /^NodeId\s+DirectoryId\s+LogEndOffset\s+Lag\s+LastFetchTimestamp\s+LastCaughtUpTimestamp\s+Status\s+$/,
    );
    expect(lines[1]).toMatch(/\d+\s+\S+\s+\d+\s+\d+\s+-?\d+\s+-?\d+\s+Leader\s*/);
    expect(
      lines.filter((line) => /\d+\s+\S+\s+\d+\s+\d+\s+-?\d+\s+-?\d+\s+Follower\s*/.test(line)),
    ).toHaveLength(2);
    expect(
      lines.filter((line) => /\d+\s+\S+\s+\d+\s+\d+\s+-?\d+\s+-?\d+\s+Observer\s*/.test(line)),
    ).toHaveLength(1);
  });

  it('prints timestamps as "N ms ago" with --human-readable, and -1 where the leader knows none', () => {
    const lines = formatReplicationTable(QUORUM, {
      humanReadable: true,
      wallClockMs: () => Number(T) + 1000,
    });
    const cells = lines.map((line) => line.split('\t'));
    expect(cells[1]?.slice(4, 6).map((cell) => cell.trimEnd())).toEqual(['500 ms ago', '500 ms ago']);
    expect(cells[3]?.slice(4, 6).map((cell) => cell.trimEnd())).toEqual(['900 ms ago', '1000 ms ago']);
    expect(cells[4]?.slice(4, 6).map((cell) => cell.trimEnd())).toEqual(['-1', '-1']);
  });

  it("refuses a timestamp in the future with Kafka's drift message", () => {
    expect(() => relativeTimeMs(T + 5n, 'last fetch', Number(T))).toThrow(
      `Error while computing relative time, possible drift in system clock.\nCurrent timestamp is ${T}, last fetch timestamp is ${T + 5n}`,
    );
    expect(() => relativeTimeMs(0n, 'last caught up', Number(T))).toThrow('possible drift in system clock');
    expect(relativeTimeMs(T, 'last fetch', Number(T))).toBe(0n);
  });

  it('brackets IPv6 hosts in endpoints', () => {
    expect(formatEndpoint({ name: 'CONTROLLER', host: 'fe80::1', port: 9093 })).toBe(
      'CONTROLLER://[fe80::1]:9093',
    );
    expect(formatEndpoint({ name: 'CONTROLLER', host: 'localhost', port: 9093 })).toBe(
      'CONTROLLER://localhost:9093',
    );
  });
});
