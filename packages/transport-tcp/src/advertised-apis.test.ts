// Every API a node advertises in ApiVersions, at every version it advertises, gets an answer.
// A real KafkaRaftClient runs behind its RaftDriver and a TcpNetworkChannel on 127.0.0.1:0; a raw
// socket asks ApiVersions what the node serves and then sends one request per (api, version),
// one at a time as Kafka's client does, and fails on the first one left unanswered. Before the
// voter-change RPCs had a handler, UpdateRaftVoter waited here until the timeout.
import {
  ApiKeys,
  type ApiVersionsResponseData,
  apiKeyFor,
  readResponseFrame,
  silentLogger,
} from '@kraft/protocol';
import { KafkaRaftClient, RaftDriver, SeededRandom, SystemTime, VoterSet } from '@kraft/raft';
import { MockLog, MockQuorumStateStore } from '@kraft/raft/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient, requestFrame } from '../test/socket-harness.js';
import { TcpNetworkChannel } from './tcp-network-channel.js';

/** Well inside Kafka's 2 s controller request timeout; every answer here comes within one poll. */
const ANSWER_TIMEOUT_MS = 2_000;
const LOCAL_ID = 1;

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real node: client, driver and channel, as the test server composes them (log and store in memory). */
async function startNode(voterIds: readonly number[]): Promise<{ port: number; driver: RaftDriver }> {
  const channel = new TcpNetworkChannel({
    nodeId: LOCAL_ID,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
  });
  const [bound] = await channel.start();
  cleanups.push(() => channel.close());
  const log = new MockLog();
  const time = new SystemTime();
  const quorumStateStore = new MockQuorumStateStore();
  const client = new KafkaRaftClient({
    nodeId: LOCAL_ID,
    voters: VoterSet.fromIds(voterIds),
    log,
    network: channel,
    quorumStateStore,
    random: new SeededRandom(11),
    config: { electionTimeoutMs: 200 },
    logger: silentLogger,
  });
  const driver = new RaftDriver({ client, log, network: channel, quorumStateStore, time });
  client.initialize(time.milliseconds());
  const stopped = driver.start();
  channel.attach(driver);
  cleanups.push(async () => {
    await driver.shutdown(1_000);
    await stopped;
  });
  return { port: bound!.port, driver };
}

/** Sends one request and waits for its answer, failing after ANSWER_TIMEOUT_MS. */
async function roundTrip(socket: RawClient, apiKey: number, apiVersion: number, correlationId: number) {
  const data =
    apiKey === ApiKeys.API_VERSIONS.key
      ? ApiKeys.API_VERSIONS.request.defaults({
          clientSoftwareName: 'kraft-test',
          clientSoftwareVersion: '1.0',
        })
      : apiKeyFor(apiKey)!.request.defaults();
  await socket.write(requestFrame(apiKey, apiVersion, correlationId, data));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`api ${apiKey} v${apiVersion}: no answer within ${ANSWER_TIMEOUT_MS} ms`)),
      ANSWER_TIMEOUT_MS,
    );
  });
  try {
    const body = await Promise.race([socket.nextFrame(), timedOut]);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(body.length);
    return readResponseFrame(Buffer.concat([prefix, body]), apiKey, apiVersion);
  } finally {
    clearTimeout(timer);
  }
}

/** What the node advertises, read from its own ApiVersions answer. */
async function advertisedApis(socket: RawClient): Promise<ApiVersionsResponseData['apiKeys']> {
  const answer = await roundTrip(socket, ApiKeys.API_VERSIONS.key, 3, 0);
  const data = answer.data as ApiVersionsResponseData;
  expect(data.errorCode).toBe(0);
  return data.apiKeys;
}

async function expectEveryAdvertisedApiAnswered(port: number): Promise<void> {
  const socket = await RawClient.open(port);
  cleanups.push(async () => socket.destroy());
  const apis = await advertisedApis(socket);
  // The voter-change RPCs are what a Java follower sends first; they must be among those checked.
  expect(apis.map((api) => api.apiKey)).toEqual(expect.arrayContaining([1, 18, 52, 55, 80, 81, 82]));
  let correlationId = 1;
  const answered: string[] = [];
  for (const api of apis) {
    for (let version = api.minVersion; version <= api.maxVersion; version += 1) {
      const answer = await roundTrip(socket, api.apiKey, version, correlationId);
      expect(answer.correlationId).toBe(correlationId);
      answered.push(`${api.apiKey}v${version}`);
      correlationId += 1;
    }
  }
  const expectedCount = apis.reduce((sum, api) => sum + api.maxVersion - api.minVersion + 1, 0);
  expect(answered).toHaveLength(expectedCount);
}

describe('every advertised API at every advertised version is answered', () => {
  it('by the leader of a one-voter quorum', async () => {
    const { port, driver } = await startNode([LOCAL_ID]);
    await expect.poll(() => driver.state().role, { timeout: 10_000 }).toBe('leader');
    await expectEveryAdvertisedApiAnswered(port);
  });

  it('by a voter whose peers are down (no leader)', async () => {
    const { port, driver } = await startNode([LOCAL_ID, 2, 3]);
    await expectEveryAdvertisedApiAnswered(port);
    expect(driver.state().leaderId).toBeUndefined();
  });
});
