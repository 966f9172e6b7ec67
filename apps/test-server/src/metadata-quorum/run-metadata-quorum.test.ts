import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeMetaProperties } from '@kraft/log';
import { type AddRaftVoterRequestData, ApiKeys, Errors, Uuid } from '@kraft/protocol';
import { NodeFileSystem } from '@kraft/records';
import { TlsContext } from '@kraft/transport-tcp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeController, type FakeQuorum } from '../../test/support/fake-controller.js';
import { runMetadataQuorum } from './run-metadata-quorum.js';

const TLS_FIXTURES = join(import.meta.dirname, '../../../../packages/transport-tcp/test/fixtures/tls');
const fixture = (name: string): string => join(TLS_FIXTURES, name);

const T = 1_700_000_000_000n;
const QUORUM: FakeQuorum = {
  leaderId: 1,
  leaderEpoch: 4,
  highWatermark: 900n,
  voters: [
    {
      id: 1,
      directoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
      logEndOffset: 910n,
      lastFetchTimestamp: T,
      lastCaughtUpTimestamp: T,
    },
    {
      id: 2,
      directoryId: Uuid.fromString('Nkij_D9XRiYKNb41SiJo7Q'),
      logEndOffset: 905n,
      lastFetchTimestamp: T - 20n,
      lastCaughtUpTimestamp: T - 70n,
    },
  ],
  nodes: [
    { id: 1, name: 'PLAINTEXT', host: '127.0.0.1', port: 9092 },
    { id: 2, name: 'PLAINTEXT', host: '127.0.0.1', port: 9093 },
  ],
};

const controllers: FakeController[] = [];
let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'kraft-metadata-quorum-'));
});
afterEach(async () => {
  await Promise.all(controllers.splice(0).map((controller) => controller.close()));
  rmSync(directory, { recursive: true, force: true });
});

async function controller(...args: Parameters<typeof FakeController.start>): Promise<FakeController> {
  const started = await FakeController.start(...args);
  controllers.push(started);
  return started;
}

/** A follower naming `leader`, as the tool is usually pointed at. */
async function followerOf(leader: FakeController): Promise<FakeController> {
  return controller({ kind: 'follower', leader: { id: 1, epoch: 4, host: '127.0.0.1', port: leader.port } });
}

async function tool(...argv: string[]) {
  const stdout: string[] = [];
  let stderr = '';
  const code = await runMetadataQuorum(argv, {
    stdoutLine: (line) => stdout.push(line),
    stderrText: (text) => {
      stderr += text;
    },
    wallClockMs: () => Number(T) + 5,
  });
  return { code, stdout, stderr };
}

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

describe('kraft-metadata-quorum describe', () => {
  it('prints --status from the leader when pointed at a follower', async () => {
    const leader = await controller({ kind: 'leader', quorum: QUORUM });
    const follower = await followerOf(leader);
    const run = await tool('--bootstrap-controller', follower.endpoint, 'describe', '--status');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual([
      'ClusterId:              AAAAAAAAAAAAAAAAAAAAAA',
      'LeaderId:               1',
      'LeaderEpoch:            4',
      'HighWatermark:          900',
      'MaxFollowerLag:         5',
      'MaxFollowerLagTimeMs:   70',
      'CurrentVoters:          [{"id": 1, "directoryId": "b8tRS7h4TJ2Vt43Dp85v2A", "endpoints": ["PLAINTEXT://127.0.0.1:9092"]}, {"id": 2, "directoryId": "Nkij_D9XRiYKNb41SiJo7Q", "endpoints": ["PLAINTEXT://127.0.0.1:9093"]}]',
      'CurrentObservers:       []',
    ]);
  });

  it('prints --replication --human-readable', async () => {
    const leader = await controller({ kind: 'leader', quorum: QUORUM });
    const run = await tool(
      '--bootstrap-controller',
      leader.endpoint,
      'describe',
      '--replication',
      '--human-readable',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual([
      'NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t',
      '1     \tb8tRS7h4TJ2Vt43Dp85v2A\t910         \t0  \t5 ms ago          \t5 ms ago             \tLeader  \t',
      '2     \tNkij_D9XRiYKNb41SiJo7Q\t905         \t5  \t25 ms ago         \t75 ms ago            \tFollower\t',
    ]);
  });

  it('exits 1 with the controllers tried when none leads', async () => {
    const lost = await controller({ kind: 'follower' });
    const run = await tool(
      '--bootstrap-controller',
      lost.endpoint,
      '--command-timeout-ms',
      '400',
      'describe',
      '--status',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toEqual([]);
    expect(run.stderr).toBe(
      `kraft-metadata-quorum.sh: no controller answered DescribeQuorum as the quorum leader within 400 ms; tried ${lost.endpoint} (NOT_LEADER_OR_FOLLOWER; asked for the leader: NOT_LEADER_OR_FOLLOWER, leader unknown)`,
    );
  });

  it('exits 2 with the usage on a bad command line', async () => {
    const run = await tool('--bootstrap-controller', 'localhost:9093', 'describe');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'error: One of --status or --replication must be specified with describe sub-command',
    );
    expect(run.stderr).toContain('Usage: kraft-metadata-quorum.sh');
  });

  it('connects over TLS with the ssl.* keys of --command-config', async () => {
    const serverTls = TlsContext.create({
      privateKeyPem: readFileSync(fixture('server-key.pem'), 'utf8'),
      certificateChainPem: readFileSync(fixture('server.pem'), 'utf8'),
      trustedCertificatesPem: readFileSync(fixture('ca.pem'), 'utf8'),
      clientAuth: 'required',
    });
    const leader = await controller({ kind: 'leader', quorum: QUORUM }, { tls: serverTls });
    const mutualTls = file(
      'admin-ssl.properties',
      [
        'security.protocol=SSL',
        `ssl.truststore.location=${fixture('ca.pem')}`,
        `ssl.keystore.location=${fixture('client-keystore.pem')}`,
      ].join('\n'),
    );
    const run = await tool(
      '--bootstrap-controller',
      leader.endpoint,
      '--command-config',
      mutualTls,
      'describe',
      '--status',
    );
    expect(run.stderr).toBe('');
    expect(run.stdout[1]).toBe('LeaderId:               1');
    // Without the client certificate the listener refuses the handshake: the tool says it could not connect.
    const noCertificate = file(
      'admin-no-cert.properties',
      ['security.protocol=SSL', `ssl.truststore.location=${fixture('ca.pem')}`].join('\n'),
    );
    const refused = await tool(
      '--bootstrap-controller',
      leader.endpoint,
      '--command-config',
      noCertificate,
      '--command-timeout-ms',
      '600',
      'describe',
      '--status',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${leader.endpoint} (cannot connect, or the connection was lost (BROKER_NOT_AVAILABLE))`,
    );
  });

  it('refuses an unusable --command-config with exit 1 and the reason', async () => {
    const missing = join(directory, 'missing.properties');
    const run = await tool(
      '--bootstrap-controller',
      'localhost:9093',
      '--command-config',
      missing,
      'describe',
      '--status',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`kraft-metadata-quorum.sh: Properties file ${missing} does not exists!`);
    const sasl = file('sasl.properties', 'security.protocol=SASL_SSL\n');
    const saslRun = await tool(
      '--bootstrap-controller',
      'localhost:9093',
      '--command-config',
      sasl,
      'describe',
      '--status',
    );
    expect(saslRun.code).toBe(1);
    expect(saslRun.stderr).toBe(
      "kraft-metadata-quorum.sh: invalid value 'SASL_SSL' for configuration security.protocol: expected PLAINTEXT or SSL (the test server has no SASL listener)",
    );
    const badTimeout = file('timeout.properties', 'request.timeout.ms=soon\n');
    const timeoutRun = await tool(
      '--bootstrap-controller',
      'localhost:9093',
      '--command-config',
      badTimeout,
      'describe',
      '--status',
    );
    expect(timeoutRun.code).toBe(1);
    expect(timeoutRun.stderr).toContain("invalid value 'soon' for configuration request.timeout.ms");
  });
});

describe('kraft-metadata-quorum add-controller and remove-controller', () => {
  it("reports the leader's refusal of RemoveRaftVoter with its code and message, exit 1", async () => {
    const leader = await controller({
      kind: 'leader',
      quorum: QUORUM,
      voterChange: {
        errorCode: Errors.UNSUPPORTED_VERSION.code,
        errorMessage: "Cluster doesn't support removing voter because the kraft.version feature is 0",
      },
    });
    const follower = await followerOf(leader);
    const run = await tool(
      '--bootstrap-controller',
      follower.endpoint,
      'remove-controller',
      '--controller-id',
      '2',
      '--controller-directory-id',
      'Nkij_D9XRiYKNb41SiJo7Q',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toEqual([]);
    expect(run.stderr).toBe(
      `kraft-metadata-quorum.sh: RemoveRaftVoter refused by the leader at ${leader.endpoint}: UNSUPPORTED_VERSION (error code 35): Cluster doesn't support removing voter because the kraft.version feature is 0`,
    );
  });

  it("prints Kafka's lines for a removal the leader accepts and for a dry run, which sends nothing", async () => {
    const leader = await controller({ kind: 'leader', quorum: QUORUM });
    const argv = [
      '--bootstrap-controller',
      leader.endpoint,
      'remove-controller',
      '-i',
      '2',
      '-d',
      'Nkij_D9XRiYKNb41SiJo7Q',
    ];
    expect((await tool(...argv)).stdout).toEqual([
      'Removed  KRaft controller 2 with directory id Nkij_D9XRiYKNb41SiJo7Q',
    ]);
    expect((await tool(...argv, '--dry-run')).stdout).toEqual([
      'DRY RUN of removing  KRaft controller 2 with directory id Nkij_D9XRiYKNb41SiJo7Q',
    ]);
    expect(leader.requestsOf(ApiKeys.REMOVE_RAFT_VOTER.key)).toHaveLength(1);
  });

  it("adds the controller of --command-config: its id, its log dir's directory id and its endpoints; Kafka's line", async () => {
    const leader = await controller({ kind: 'leader', quorum: QUORUM });
    const logDir = join(directory, 'kraft-logs-4');
    const directoryId = Uuid.fromString('wZoXPqWoSu6F6c8MkmdyAg');
    mkdirSync(logDir);
    writeMetaProperties(new NodeFileSystem(), logDir, {
      version: 1,
      clusterId: Uuid.ZERO.toString(),
      nodeId: 4,
      directoryId,
    });
    const config = file(
      'controller-4.properties',
      [
        'node.id=4',
        'listeners=PLAINTEXT://127.0.0.1:9096',
        'controller.listener.names=PLAINTEXT',
        `log.dirs=${logDir}`,
      ].join('\n'),
    );
    const dryRun = await tool(
      '--bootstrap-controller',
      leader.endpoint,
      '--command-config',
      config,
      'add-controller',
      '--dry-run',
    );
    expect(dryRun.stdout).toEqual([
      'DRY RUN of adding controller 4 with directory id wZoXPqWoSu6F6c8MkmdyAg and endpoints: PLAINTEXT://127.0.0.1:9096',
    ]);
    expect(leader.requestsOf(ApiKeys.ADD_RAFT_VOTER.key)).toHaveLength(0);
    const added = await tool('--bootstrap-controller', leader.endpoint, 'add-controller', '--config', config);
    expect(added.stderr).toBe('');
    expect(added.stdout).toEqual([
      'Added controller 4 with directory id wZoXPqWoSu6F6c8MkmdyAg and endpoints: PLAINTEXT://127.0.0.1:9096',
    ]);
    const [sent] = leader.requestsOf(ApiKeys.ADD_RAFT_VOTER.key);
    const data = sent?.data as AddRaftVoterRequestData;
    expect([data.voterId, data.voterDirectoryId.toString(), data.listeners]).toEqual([
      4,
      'wZoXPqWoSu6F6c8MkmdyAg',
      [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9096 }],
    ]);
  });

  it('refuses to add a controller that was never formatted, before sending anything', async () => {
    const leader = await controller({ kind: 'leader', quorum: QUORUM });
    const logDir = join(directory, 'never-started');
    const config = file(
      'controller-5.properties',
      `node.id=5\nlisteners=C://:9097\ncontroller.listener.names=C\nlog.dirs=${logDir}\n`,
    );
    const run = await tool(
      '--bootstrap-controller',
      leader.endpoint,
      '--command-config',
      config,
      'add-controller',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`kraft-metadata-quorum.sh: Unable to read meta.properties from ${logDir}`);
    expect(leader.received).toHaveLength(0);
  });
});
