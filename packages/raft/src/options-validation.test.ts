/**
 * Public constructors of the raft package, called the way a JavaScript caller can get them wrong:
 * each must fail at the call with an InvalidConfigurationError naming the option.
 */
import { InvalidConfigurationError, silentLogger } from '@kraft/protocol';
import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { MockLog } from '../test/kit/mock-log.js';
import { MockNetworkChannel } from '../test/kit/mock-network-channel.js';
import { MockQuorumStateStore } from '../test/kit/mock-quorum-state-store.js';
import { MockTime } from '../test/kit/mock-time.js';
import { FileQuorumStateStore } from './io/file-quorum-state-store.js';
import { RaftDriver } from './io/raft-driver.js';
import { KafkaRaftClient } from './kafka-raft-client.js';
import type { KafkaRaftClientOptions } from './kafka-raft-client-options.js';
import type { InboundResponse } from './ports/network-channel.js';
import { SeededRandom } from './ports/random.js';
import { resolveQuorumConfig } from './quorum-config.js';
import { RaftApiKey } from './rpc/raft-api-key.js';
import { VoterSet } from './voter-set.js';

function clientOptions(): KafkaRaftClientOptions {
  return {
    nodeId: 1,
    voters: VoterSet.fromIds([1, 2, 3]),
    log: new MockLog(),
    network: new MockNetworkChannel(),
    quorumStateStore: new MockQuorumStateStore(),
    random: new SeededRandom(1),
  };
}

function expectRefused(construct: () => unknown, message: RegExp): void {
  expect(construct).toThrow(InvalidConfigurationError);
  expect(construct).toThrow(message);
}

describe('KafkaRaftClient options', () => {
  const withOverride = (override: Record<string, unknown>) => () =>
    new KafkaRaftClient({ ...clientOptions(), ...override } as unknown as KafkaRaftClientOptions);

  it('accepts the usual options', () => {
    expect(withOverride({})()).toBeInstanceOf(KafkaRaftClient);
  });

  it('refuses a missing or plain-object voter set and missing ports, naming them', () => {
    expectRefused(
      withOverride({ voters: undefined }),
      /^KafkaRaftClient: voters must be a VoterSet .*got undefined$/,
    );
    expectRefused(
      withOverride({ voters: { voterIds: () => [1] } }),
      /voters must be a VoterSet .*got a plain object/,
    );
    expectRefused(withOverride({ log: {} }), /KafkaRaftClient: log must have the methods appendAsLeader/);
    expectRefused(withOverride({ network: undefined }), /KafkaRaftClient: network must be an object with/);
    expectRefused(
      withOverride({ quorumStateStore: { path: () => 'x' } }),
      /quorumStateStore must have the methods/,
    );
    expectRefused(withOverride({ random: Math }), /KafkaRaftClient: random must have the methods nextInt/);
    expectRefused(
      withOverride({ maxQueuedMessages: 0 }),
      /KafkaRaftClient: maxQueuedMessages must be an integer in \[1, /,
    );
    expectRefused(withOverride({ logger: console }), /KafkaRaftClient: logger must have the methods fatal/);
  });

  it('refuses bad ids, versions and topics', () => {
    expectRefused(
      withOverride({ nodeId: '1' }),
      /KafkaRaftClient: nodeId must be an integer in \[0, .*got '1'/,
    );
    expectRefused(withOverride({ nodeId: Number.NaN }), /nodeId must be an integer .*got NaN/);
    expectRefused(withOverride({ nodeId: -1 }), /nodeId must be an integer in \[0, /);
    expectRefused(withOverride({ directoryId: 'b8tRS7h4TJ2Vt43Dp85v2A' }), /directoryId must be a Uuid/);
    expectRefused(withOverride({ clusterId: 7 }), /clusterId must be a non-empty string, got 7/);
    expectRefused(withOverride({ kraftVersion: 2 }), /kraftVersion must be 0 or 1, got 2/);
    expectRefused(
      withOverride({ rpcVersions: { fetch: 'latest' } }),
      /rpcVersions\.fetch must be an integer/,
    );
    expectRefused(withOverride({ rpcVersions: { fecth: 17 } }), /rpcVersions has unknown option\(s\) fecth/);
    expectRefused(
      withOverride({ topic: { name: '__raft_performance_test' } }),
      /topic\.topicId must be a Uuid/,
    );
    expectRefused(withOverride({ listenerName: '' }), /listenerName must be a non-empty string/);
  });

  it('refuses quorum settings that are NaN, negative, strings or misspelt', () => {
    expectRefused(withOverride({ config: { electionTimeoutMs: Number.NaN } }), /electionTimeoutMs .*got NaN/);
    expectRefused(withOverride({ config: { fetchTimeoutMs: -5 } }), /fetchTimeoutMs .*got -5/);
    expectRefused(
      withOverride({ config: { appendLingerMs: '25' } }),
      /appendLingerMs must be an integer in \[0, .*got '25'/,
    );
    expectRefused(
      withOverride({ config: { electionTimeoutMS: 100 } }),
      /unknown option\(s\) electionTimeoutMS/,
    );
    expectRefused(withOverride({ config: 'fast' }), /quorum config must be an options object, got 'fast'/);
    expect(resolveQuorumConfig({ electionTimeoutMs: 100 }).electionTimeoutMs).toBe(100);
  });

  it('refuses a missing options object', () => {
    expectRefused(
      () => new KafkaRaftClient(undefined as unknown as KafkaRaftClientOptions),
      /KafkaRaftClient must be an options object, got undefined/,
    );
  });
});

describe('RaftDriver options', () => {
  const driverOptions = () => ({
    client: new KafkaRaftClient(clientOptions()),
    log: new MockLog(),
    network: new MockNetworkChannel(),
    quorumStateStore: new MockQuorumStateStore(),
    time: new MockTime(),
    logger: silentLogger,
  });
  const withOverride = (override: Record<string, unknown>) => () =>
    new RaftDriver({ ...driverOptions(), ...override } as never);

  it('accepts the usual options', () => {
    expect(withOverride({})()).toBeInstanceOf(RaftDriver);
  });

  it('refuses missing ports and bounds that are NaN, zero or fractional', () => {
    expectRefused(withOverride({ client: undefined }), /RaftDriver: client must be an object with poll/);
    expectRefused(
      withOverride({ log: { endOffset: () => 0 } }),
      /RaftDriver: log must have the methods lastFlushedOffset/,
    );
    expectRefused(
      withOverride({ time: { now: () => 0 } }),
      /RaftDriver: time must have the methods milliseconds/,
    );
    expectRefused(withOverride({ maxSleepMs: 0.5 }), /RaftDriver: maxSleepMs .*got 0\.5/);
    expectRefused(() => new RaftDriver(null as never), /RaftDriver must be an options object, got null/);
  });
});

describe('FileQuorumStateStore options', () => {
  it('refuses a missing file system, a missing path and a directory path', () => {
    const fileSystem = new MemoryFileSystem();
    expect(new FileQuorumStateStore({ fileSystem, path: '/data/quorum-state' }).path()).toBe(
      '/data/quorum-state',
    );
    expectRefused(
      () => new FileQuorumStateStore({ path: '/data/quorum-state' } as never),
      /FileQuorumStateStore: fileSystem must be an object with open/,
    );
    expectRefused(
      () => new FileQuorumStateStore({ fileSystem } as never),
      /FileQuorumStateStore: path must be a non-empty string, got undefined/,
    );
    expectRefused(
      () => new FileQuorumStateStore({ fileSystem, path: '/data/' }),
      /FileQuorumStateStore: path must name a file, got the directory '\/data\/'/,
    );
  });
});

describe('one InvalidConfigurationError for every package', () => {
  it('raft and log re-export the protocol class', async () => {
    const raft = await import('./index.js');
    const log = await import('@kraft/log');
    expect(raft.InvalidConfigurationError).toBe(InvalidConfigurationError);
    expect(log.InvalidConfigurationError).toBe(InvalidConfigurationError);
    expect(new InvalidConfigurationError('x').code).toBe('INVALID_CONFIG');
  });
});

/** A response nobody waits for: `poll` drops it as stale, so the test sees only the queue. */
function staleResponse(correlationId: number): InboundResponse {
  return { correlationId, apiKey: RaftApiKey.FETCH, sourceId: 2, data: {}, receivedTimeMs: 0 };
}

describe('KafkaRaftClient maxQueuedMessages', () => {
  // The client's inbound queue is the one queue between the transport and `poll` (ADR 0031).
  it('refuses messages beyond the bound until poll drains the queue', () => {
    const client = new KafkaRaftClient({ ...clientOptions(), maxQueuedMessages: 2 });
    client.initialize(0);
    expect([1, 2, 3].map((id) => client.handleResponse(staleResponse(id), 0))).toEqual([true, true, false]);
    expect(client.handleRequest({ ...staleResponse(4), apiVersion: 0, createdTimeMs: 0 }, 0)).toBe(false);
    client.poll(0);
    expect(client.handleResponse(staleResponse(5), 0)).toBe(true);
  });
});
