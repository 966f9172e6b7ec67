import { createServer, type Server, type Socket } from 'node:net';
import {
  ApiVersionsResponse,
  apiKeyFor,
  BeginQuorumEpochRequest,
  BeginQuorumEpochResponse,
  EndQuorumEpochRequest,
  FetchRequest,
  readRequestHeader,
  VoteRequest,
  VoteResponse,
} from '@kraft/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex, nextTurn, RawClient, startTestServer, type TestServer } from '../test/socket-harness.js';
import { kraftApiRegistry } from './api-registry.js';
import { FrameDecoder } from './frame-codec.js';
import type { InboundCall } from './inbound-call.js';
import { OutboundClient } from './outbound-client.js';

// kraft-formats.md §9: whole frames, size prefix included.
const VOTE_REQUEST_V1 = hex(
  '000000830034000100000007000d726166742d636c69656e742d320017713153682d395f495369615f5a476334694e545542510000000102135f5f636c75737465725f6d657461646174610200000000000000050000000227c6803dc7cb42dd9baacd494ffacc816fcb514bb8784c9d95b78dc3a7ce6fd800000004000000000000002a000000',
);
const VOTE_REQUEST_V0 = hex(
  '0000005f0034000000000007000d726166742d636c69656e742d320017713153682d395f495369615f5a476334694e5455425102135f5f636c75737465725f6d657461646174610200000000000000050000000200000004000000000000002a000000',
);
const VOTE_RESPONSE_GRANTED = hex(
  '0000002e0000000700000002135f5f636c75737465725f6d6574616461746102000000000000ffffffff0000000501000000',
);
const VOTE_RESPONSE_WITH_ENDPOINTS = hex(
  '000000420000000700000002135f5f636c75737465725f6d6574616461746102000000000000000000020000000500000001001202000000020a6c6f63616c686f7374238500',
);
const FETCH_REQUEST_V17 = hex(
  '0000009e0001001100000008000d726166742d636c69656e742d3200000001f400000000008000000000000000ffffffff0200000000000000000000000000000001020000000000000005000000000000002b00000005ffffffffffffffff0000000001001027c6803dc7cb42dd9baacd494ffacc8100010102001717713153682d395f495369615f5a476334694e54554251010d00000002ffffffffffffffff00',
);
const API_VERSIONS_REQUEST_V4 = hex(
  '0000003a0012000400000000000d726166742d636c69656e742d3200126170616368652d6b61666b612d6a6176610f342e302e302d534e415053484f5400',
);
const API_VERSIONS_RESPONSE_V4 = hex('0000001a0000000000000300120000000400003400000001000000000000');
const BEGIN_QUORUM_EPOCH_REQUEST_V1 = hex(
  '000000800035000100000009000d726166742d636c69656e742d310017713153682d395f495369615f5a476334694e545542510000000202135f5f636c75737465725f6d65746164617461020000000027c6803dc7cb42dd9baacd494ffacc8100000001000000050000020b434f4e54524f4c4c45520a6c6f63616c686f737423850000',
);
const BEGIN_QUORUM_EPOCH_REQUEST_V0 = hex(
  '000000570035000000000009000d726166742d636c69656e742d310016713153682d395f495369615f5a476334694e545542510000000100125f5f636c75737465725f6d6574616461746100000001000000000000000100000005',
);
const BEGIN_QUORUM_EPOCH_RESPONSE_V0 = hex(
  '000000300000000900000000000100125f5f636c75737465725f6d65746164617461000000010000000000000000000100000005',
);
const END_QUORUM_EPOCH_REQUEST_V1 = hex(
  '00000082003600010000000b000d726166742d636c69656e742d310017713153682d395f495369615f5a476334694e5455425102135f5f636c75737465725f6d6574616461746102000000000000000100000005020000000227c6803dc7cb42dd9baacd494ffacc81000000020b434f4e54524f4c4c45520a6c6f63616c686f737423850000',
);

const apis = kraftApiRegistry();

interface RequestVector {
  readonly name: string;
  readonly frame: Buffer;
  readonly read: (body: Buffer, version: number) => unknown;
  /** The response vector the server must write byte for byte, when §9 has one for this request. */
  readonly response?: {
    readonly frame: Buffer;
    readonly read: (body: Buffer, version: number) => unknown;
    readonly headerBytes: number;
  };
}

const REQUEST_VECTORS: RequestVector[] = [
  {
    name: 'D VoteRequest v1',
    frame: VOTE_REQUEST_V1,
    read: (body, version) => VoteRequest.read(body, version),
    response: {
      frame: VOTE_RESPONSE_WITH_ENDPOINTS,
      read: (body, version) => VoteResponse.read(body, version),
      headerBytes: 5,
    },
  },
  {
    name: 'D VoteRequest v0',
    frame: VOTE_REQUEST_V0,
    read: (body, version) => VoteRequest.read(body, version),
  },
  {
    name: 'F FetchRequest v17',
    frame: FETCH_REQUEST_V17,
    read: (body, version) => FetchRequest.read(body, version),
  },
  {
    name: 'H BeginQuorumEpochRequest v1',
    frame: BEGIN_QUORUM_EPOCH_REQUEST_V1,
    read: (body, version) => BeginQuorumEpochRequest.read(body, version),
  },
  {
    name: 'L BeginQuorumEpochRequest v0',
    frame: BEGIN_QUORUM_EPOCH_REQUEST_V0,
    read: (body, version) => BeginQuorumEpochRequest.read(body, version),
    response: {
      frame: BEGIN_QUORUM_EPOCH_RESPONSE_V0,
      read: (body, version) => BeginQuorumEpochResponse.read(body, version),
      headerBytes: 4,
    },
  },
  {
    name: 'L EndQuorumEpochRequest v1',
    frame: END_QUORUM_EPOCH_REQUEST_V1,
    read: (body, version) => EndQuorumEpochRequest.read(body, version),
  },
];

/** Writes `frame` as two segments split at `split`, yielding in between so they arrive apart. */
async function writeSplit(client: RawClient | Socket, frame: Buffer, split: number): Promise<void> {
  const write = (bytes: Buffer): Promise<void> =>
    client instanceof RawClient
      ? client.write(bytes)
      : new Promise((resolve) => client.write(bytes, () => resolve()));
  if (split > 0) await write(frame.subarray(0, split));
  await nextTurn();
  if (split < frame.length) await write(frame.subarray(split));
}

describe('§9 vectors over a loopback socket, split at every byte boundary', () => {
  let server: TestServer;
  let pendingCall: ((call: InboundCall) => void) | undefined;

  beforeAll(async () => {
    server = await startTestServer((call) => pendingCall?.(call));
  });
  afterAll(async () => {
    await server.server.close();
  });

  for (const vector of REQUEST_VECTORS) {
    it(`server decodes ${vector.name} identically and answers byte-identically`, async () => {
      const apiKey = vector.frame.readInt16BE(4);
      const apiVersion = vector.frame.readInt16BE(6);
      const { header, bodyOffset } = readRequestHeader(vector.frame);
      const expected = vector.read(vector.frame.subarray(bodyOffset), apiVersion);
      const client = await RawClient.open(server.port);
      for (let split = 0; split <= vector.frame.length; split += 1) {
        const received = new Promise<InboundCall>((resolve) => {
          pendingCall = resolve;
        });
        await writeSplit(client, vector.frame, split);
        const call = await received;
        expect(call.header).toMatchObject({
          requestApiKey: apiKey,
          requestApiVersion: apiVersion,
          correlationId: header.correlationId,
          clientId: header.clientId,
        });
        expect(call.data).toEqual(expected);
        const response = vector.response;
        if (response === undefined) {
          call.respond(apiKeyFor(apiKey)!.response.defaults());
          await client.nextFrame();
        } else {
          call.respond(response.read(response.frame.subarray(4 + response.headerBytes), apiVersion));
          expect((await client.nextFrame()).toString('hex')).toBe(response.frame.subarray(4).toString('hex'));
        }
      }
      client.destroy();
    });
  }

  it('server answers G ApiVersionsRequest v4 at every split with the KRaft controller API list', async () => {
    const client = await RawClient.open(server.port);
    for (let split = 0; split <= API_VERSIONS_REQUEST_V4.length; split += 1) {
      await writeSplit(client, API_VERSIONS_REQUEST_V4, split);
      const frame = await client.nextFrame();
      expect(frame.readInt32BE(0)).toBe(0);
      const response = ApiVersionsResponse.read(frame.subarray(4), 4);
      expect(response.errorCode).toBe(0);
      expect(response.apiKeys.map((range) => [range.apiKey, range.minVersion, range.maxVersion])).toEqual(
        apis.versionRanges().map((range) => [range.apiKey, range.minVersion, range.maxVersion]),
      );
    }
    client.destroy();
  });
});

/** A stand-in Kafka node: answers ApiVersions with vector J and Vote with vector E, each split at `split`. */
async function startScriptedPeer(
  split: () => number,
): Promise<{ peer: Server; port: number; requests: Buffer[] }> {
  const requests: Buffer[] = [];
  const peer = createServer((socket) => {
    const decoder = new FrameDecoder();
    let voteCount = 0;
    let chain = Promise.resolve();
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      for (let result = decoder.next(); result.kind === 'frame'; result = decoder.next()) {
        const request = result.frame.subarray(4);
        requests.push(request);
        const isApiVersions = request.readInt16BE(0) === 18;
        const template = isApiVersions
          ? API_VERSIONS_RESPONSE_V4
          : voteCount++ % 2 === 0
            ? VOTE_RESPONSE_GRANTED
            : VOTE_RESPONSE_WITH_ENDPOINTS;
        const response = Buffer.from(template);
        response.writeInt32BE(request.readInt32BE(4), 4);
        chain = chain.then(() => writeSplit(socket, response, Math.min(split(), response.length)));
      }
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  const address = peer.address();
  return { peer, port: typeof address === 'object' && address !== null ? address.port : 0, requests };
}

describe('client decodes §9 response vectors J and E split at every byte boundary', () => {
  it('negotiates from J, sends Vote v1 byte-identical to D, and decodes E identically', async () => {
    let split = 0;
    const { peer, port, requests } = await startScriptedPeer(() => split);
    const voteData = VoteRequest.read(VOTE_REQUEST_V1.subarray(4 + 24), 1);
    const expectedResponses = [VOTE_RESPONSE_GRANTED, VOTE_RESPONSE_WITH_ENDPOINTS].map((frame) =>
      VoteResponse.read(frame.subarray(4 + 5), 1),
    );
    const longest = Math.max(API_VERSIONS_RESPONSE_V4.length, VOTE_RESPONSE_WITH_ENDPOINTS.length);
    for (split = 0; split <= longest; split += 1) {
      const client = new OutboundClient({ apis, clientId: 'raft-client-2' });
      client.updateEndpoint(1, { host: '127.0.0.1', port });
      for (const expected of expectedResponses) {
        const data = await new Promise<unknown>((resolve) =>
          client.send(1, {
            apiKey: 52,
            maxVersion: 2,
            data: voteData,
            deadlineMs: Number.MAX_SAFE_INTEGER,
            complete: resolve,
          }),
        );
        expect(data).toEqual(expected);
      }
      client.close();
    }
    const voteFrames = requests.filter((frame) => frame.readInt16BE(0) === 52);
    expect(voteFrames.length).toBe(2 * (longest + 1));
    for (const frame of voteFrames) {
      const patched = Buffer.from(frame);
      patched.writeInt32BE(7, 4);
      expect(patched.toString('hex')).toBe(VOTE_REQUEST_V1.subarray(4).toString('hex'));
    }
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  });
});
