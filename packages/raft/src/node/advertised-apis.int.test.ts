// Every API a node advertises in ApiVersions, at every version it advertises, gets an answer.
// A RaftNode listens on 127.0.0.1:0; a raw socket asks ApiVersions what the node serves and then
// sends one request per (api, version), one at a time as Kafka's client does, and fails on the
// first one left unanswered. Before the voter-change RPCs had a handler, UpdateRaftVoter waited
// here until the timeout. (Moved from transport-tcp, which no longer depends on raft: ADR 0023.)
import { connect, type Socket } from 'node:net';
import {
  ApiKeys,
  type ApiVersionsResponseData,
  apiKeyFor,
  readResponseFrame,
  writeRequestFrame,
} from '@kraft/protocol';
import { FrameDecoder } from '@kraft/transport-tcp';
import { afterEach, describe, expect, it } from 'vitest';
import { RaftNode } from './raft-node.js';
import { TestCluster } from './raft-node-cluster.test-support.js';

/** Well inside Kafka's 2 s controller request timeout; every answer here comes within one poll. */
const ANSWER_TIMEOUT_MS = 2_000;

const cluster = new TestCluster();
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await cluster.closeAll();
});

/** One request frame out, its response frame back (size prefix included), or a timeout. */
class FrameSocket {
  private readonly decoder = new FrameDecoder();
  private readonly frames: Buffer[] = [];
  private waiting: ((frame: Buffer) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.decoder.push(chunk);
      for (let result = this.decoder.next(); result.kind !== 'incomplete'; result = this.decoder.next()) {
        const waiting = this.waiting;
        this.waiting = undefined;
        if (waiting === undefined) this.frames.push(result.frame);
        else waiting(result.frame);
      }
    });
  }

  static open(port: number): Promise<FrameSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new FrameSocket(socket)));
      sockets.push(socket);
      socket.once('error', reject);
    });
  }

  async roundTrip(apiKey: number, apiVersion: number, correlationId: number) {
    const data =
      apiKey === ApiKeys.API_VERSIONS.key
        ? ApiKeys.API_VERSIONS.request.defaults({
            clientSoftwareName: 'kraft-test',
            clientSoftwareVersion: '1.0',
          })
        : apiKeyFor(apiKey)!.request.defaults();
    this.socket.write(
      writeRequestFrame({ apiKey, apiVersion, correlationId, clientId: 'test-client' }, data),
    );
    let timer: NodeJS.Timeout | undefined;
    const frame = await Promise.race([
      this.nextFrame(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`api ${apiKey} v${apiVersion}: no answer within ${ANSWER_TIMEOUT_MS} ms`)),
          ANSWER_TIMEOUT_MS,
        );
      }),
    ]);
    clearTimeout(timer);
    return readResponseFrame(frame, apiKey, apiVersion);
  }

  private nextFrame(): Promise<Buffer> {
    const frame = this.frames.shift();
    if (frame !== undefined) return Promise.resolve(frame);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

async function expectEveryAdvertisedApiAnswered(node: RaftNode<unknown>): Promise<void> {
  const socket = await FrameSocket.open(node.endpoints()[0]!.port);
  const versions = await socket.roundTrip(ApiKeys.API_VERSIONS.key, 3, 0);
  const apis = (versions.data as ApiVersionsResponseData).apiKeys;
  // The voter-change RPCs are what a Java follower sends first; they must be among those checked.
  expect(apis.map((api) => api.apiKey)).toEqual(expect.arrayContaining([1, 18, 52, 55, 80, 81, 82]));
  let correlationId = 1;
  for (const api of apis) {
    for (let version = api.minVersion; version <= api.maxVersion; version += 1) {
      const answer = await socket.roundTrip(api.apiKey, version, correlationId);
      expect(answer.correlationId).toBe(correlationId);
      correlationId += 1;
    }
  }
  const expectedCount = apis.reduce((sum, api) => sum + api.maxVersion - api.minVersion + 1, 0);
  expect(correlationId - 1).toBe(expectedCount);
}

describe('every advertised API at every advertised version is answered', () => {
  it('by the leader of a one-voter quorum', async () => {
    await cluster.start(1);
    const leader = await cluster.leader();
    await expectEveryAdvertisedApiAnswered(leader.node as RaftNode<unknown>);
  });

  it('by a voter whose peers are down (no leader)', async () => {
    const options = cluster.nodeOptions(1, cluster.newDirectory(), {});
    const node = await RaftNode.bind(options);
    try {
      // Ports 1 and 2 on loopback: nothing listens there, so no election can complete.
      await node.start(`1@127.0.0.1:${node.endpoints()[0]!.port},2@127.0.0.1:1,3@127.0.0.1:2`);
      await expectEveryAdvertisedApiAnswered(node as RaftNode<unknown>);
      expect(node.status().leaderId).toBeUndefined();
    } finally {
      await node.close();
    }
  });
});
