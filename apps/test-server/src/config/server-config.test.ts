import { InvalidConfigurationError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseProperties } from './load-server-config.js';
import { parseServerConfig, suggestKnownKey } from './server-config.js';

const kafkaSingleNode = `
node.id=0
listeners=PLAINTEXT://localhost:9092
controller.listener.names=PLAINTEXT
controller.quorum.voters=0@localhost:9092
log.dirs=/tmp/kraft-logs
`;

function configFrom(text: string) {
  return parseServerConfig(parseProperties(text));
}

function errorFrom(text: string): ConfigError {
  try {
    configFrom(text);
  } catch (error) {
    if (ConfigError.isConfigError(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseServerConfig', () => {
  it("reads Kafka's single-node kraft.properties and fills Kafka's defaults", () => {
    const { config, unknownKeys } = configFrom(kafkaSingleNode);
    expect(unknownKeys).toEqual([]);
    expect(config.nodeId).toBe(0);
    expect(config.controllerListener).toEqual({
      name: 'PLAINTEXT',
      securityProtocol: 'PLAINTEXT',
      host: 'localhost',
      port: 9092,
    });
    expect(config.quorum.voters).toEqual([{ nodeId: 0, host: 'localhost', port: 9092 }]);
    expect(config.metadataLogDir).toBe('/tmp/kraft-logs');
    expect(config.quorum).toMatchObject({
      electionTimeoutMs: 1000,
      fetchTimeoutMs: 2000,
      electionBackoffMaxMs: 1000,
      appendLingerMs: 25,
      requestTimeoutMs: 2000,
      retryBackoffMs: 20,
      autoJoinEnable: false,
      fetchMaxBytes: 1048576,
      fetchSnapshotMaxBytes: 1048576,
    });
    expect(config.metadataLog).toEqual({
      segmentBytes: 1073741824,
      segmentMs: 604800000,
      maxRetentionBytes: 104857600,
      maxRetentionMs: 604800000,
      maxRecordBytesBetweenSnapshots: 20971520,
      maxSnapshotIntervalMs: 3600000,
      maxIdleIntervalMs: 500,
      maxBatchSizeBytes: 8388608,
      deleteDelayMs: 60000,
      acceptFlushedDataLoss: false,
    });
    expect(config.socket.requestMaxBytes).toBe(104857600);
    expect(config.socket.connectionsMaxIdleMs).toBe(600000);
  });

  it('reads the three-node quorum and overrides', () => {
    const { config } = configFrom(`
node.id=2
listeners=PLAINTEXT://localhost:9093
controller.listener.names=PLAINTEXT
controller.quorum.voters=1@localhost:9092, 2@localhost:9093 ,3@[::1]:9094
controller.quorum.append.linger.ms=0
controller.quorum.auto.join.enable=TRUE
metadata.log.dir=/data/meta
log.dirs=/data/a,/data/b
internal.metadata.log.segment.bytes=4096
`);
    expect(config.quorum.voters.map((voter) => voter.nodeId)).toEqual([1, 2, 3]);
    expect(config.quorum.voters[2]).toEqual({ nodeId: 3, host: '::1', port: 9094 });
    expect(config.quorum.appendLingerMs).toBe(0);
    expect(config.quorum.autoJoinEnable).toBe(true);
    expect(config.metadataLogDir).toBe('/data/meta');
    expect(config.metadataLog.segmentBytes).toBe(4096);
  });

  it('accepts bootstrap servers instead of voters, and an empty listener host', () => {
    const { config } = configFrom(`
node.id=4
listeners=CONTROLLER://:9095
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=localhost:9092,localhost:9093
`);
    expect(config.quorum.voters).toEqual([]);
    expect(config.quorum.bootstrapServers).toEqual([
      { host: 'localhost', port: 9092 },
      { host: 'localhost', port: 9093 },
    ]);
    expect(config.controllerListener.host).toBe('');
    expect(config.metadataLogDir).toBe('/tmp/kafka-logs');
  });

  it('reports unknown keys without failing', () => {
    const { unknownKeys } = configFrom(`${kafkaSingleNode}\nlog.retention.hours=1\nfoo.bar=baz\n`);
    expect(unknownKeys).toEqual(['log.retention.hours', 'foo.bar']);
  });

  it.each([
    ['node.id=abc', 'node.id', "invalid value 'abc' for configuration node.id: expected a 32-bit integer in"],
    ['node.id=-1', 'node.id', "'-1'"],
    ['node.id=', 'node.id', "invalid value '' for configuration node.id"],
    [
      'controller.quorum.election.timeout.ms=-5',
      'controller.quorum.election.timeout.ms',
      'in [0, 2147483647]',
    ],
    ['controller.quorum.fetch.timeout.ms=2s', 'controller.quorum.fetch.timeout.ms', "'2s'"],
    ['controller.quorum.fetch.max.bytes=0', 'controller.quorum.fetch.max.bytes', 'in [1, 2147483647]'],
    ['controller.quorum.append.linger.ms=3000000000', 'controller.quorum.append.linger.ms', '32-bit'],
    ['controller.quorum.auto.join.enable=yes', 'controller.quorum.auto.join.enable', 'true or false'],
    ['controller.quorum.voters=0@localhost', 'controller.quorum.voters', 'is not of the form id@host:port'],
    ['controller.quorum.voters=zero@localhost:9092', 'controller.quorum.voters', "has an invalid id 'zero'"],
    ['controller.quorum.voters=1@a:1,1@b:2', 'controller.quorum.voters', 'voter 1 is listed twice'],
    ['controller.quorum.voters=0@localhost:70000', 'controller.quorum.voters', 'has an invalid port'],
    ['listeners=localhost:9092', 'listeners', "'localhost:9092' is not NAME://host:port"],
    [
      'controller.listener.names=CONTROLLER',
      'controller.listener.names',
      'listener CONTROLLER is not one of',
    ],
    [
      'listener.security.protocol.map=PLAINTEXT:SASL_PLAINTEXT',
      'listener.security.protocol.map',
      'must use PLAINTEXT or SSL',
    ],
    ['metadata.log.segment.bytes=1024', 'metadata.log.segment.bytes', 'in [8388608, 2147483647]'],
    ['socket.request.max.bytes=0', 'socket.request.max.bytes', 'in [1, 2147483647]'],
    ['process.roles=broker,zookeeper', 'process.roles', 'broker, controller'],
    [
      'controller.quorum.voters=1@localhost:9092,2@localhost:9093',
      'node.id',
      "If process.roles contains the 'controller' role, the node id 0 must be included in the set of voters controller.quorum.voters=[1, 2]",
    ],
    [
      'process.roles=broker',
      'node.id',
      "If process.roles contains just the 'broker' role, the node id 0 must not be included in the set of voters controller.quorum.voters=[0]",
    ],
    [
      'controller.quorum.voters=0@localhost:9092,1@LOCALHOST:9092',
      'controller.quorum.voters',
      'voters 0 and 1 have the same endpoint LOCALHOST:9092',
    ],
    [
      'listeners=PLAINTEXT://localhost:9092,SSL://:9092',
      'listeners',
      'Each listener must have a different port unless exactly one listener has an IPv4 address and the other an IPv6 address; PLAINTEXT and SSL share port 9092',
    ],
    [
      'listeners=PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.2:9092',
      'listeners',
      'PLAINTEXT and SSL share port 9092',
    ],
  ])('rejects %s naming the key, the value and what is expected', (line, key, expected) => {
    const error = errorFrom(`${kafkaSingleNode}\n${line}\n`);
    expect(error.key).toBe(key);
    expect(error.message).toContain(`configuration ${key}`);
    expect(error.message).toContain(expected);
  });

  it('accepts a broker-only observer that is not a voter', () => {
    const { config } = configFrom(`${kafkaSingleNode}\nnode.id=7\nprocess.roles=broker\n`);
    expect(config.nodeId).toBe(7);
    expect(config.processRoles).toEqual(['broker']);
  });

  it('lets an IPv4 and an IPv6 listener share a port, and any number use port 0', () => {
    const { config } = configFrom(
      `${kafkaSingleNode}\nlisteners=PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092,A://:0,B://:0\n` +
        'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,A:PLAINTEXT,B:PLAINTEXT\n',
    );
    expect(config.listeners.map((listener) => listener.port)).toEqual([9092, 9092, 0, 0]);
  });

  it('refuses a directory id in controller.quorum.voters, which raft parses but a static quorum has none of', () => {
    const error = errorFrom(`${kafkaSingleNode}\ncontroller.quorum.voters=0@a:1:AAAAAAAAAAAAAAAAAAAAAQ\n`);
    expect(error.key).toBe('controller.quorum.voters');
    expect(error.message).toContain('voter 0 has a directory id');
  });

  it('requires node.id, controller.listener.names and a voter or bootstrap server', () => {
    expect(errorFrom('listeners=PLAINTEXT://:1\ncontroller.listener.names=PLAINTEXT').key).toBe('node.id');
    expect(errorFrom('node.id=1\ncontroller.quorum.voters=1@a:1').key).toBe('controller.listener.names');
    const error = errorFrom('node.id=1\nlisteners=PLAINTEXT://:1\ncontroller.listener.names=PLAINTEXT');
    expect(error.message).toContain('either controller.quorum.voters or controller.quorum.bootstrap.servers');
  });
});

describe('suggestKnownKey', () => {
  it.each([
    ['controller.quorum.election.timout.ms', 'controller.quorum.election.timeout.ms'],
    ['controller.quorum.voter', 'controller.quorum.voters'],
    ['node_id', 'node.id'],
    ['controller.quorum.fetch.tiemout.ms', 'controller.quorum.fetch.timeout.ms'],
    ['listener.name.controller.ssl.keystore.locaton', 'listener.name.controller.ssl.keystore.location'],
  ])('suggests the known key closest to %s', (unknownKey, known) => {
    expect(suggestKnownKey(unknownKey)).toBe(known);
  });

  it.each(['num.partitions', 'log.retention.hours', 'foo.bar', 'listener.name.controller.sasl.mechanism'])(
    'suggests nothing for %s, which is far from every known key',
    (unknownKey) => {
      expect(suggestKnownKey(unknownKey)).toBeUndefined();
    },
  );
});

describe('ConfigError.isConfigError', () => {
  it('does not take a package option error (same code, no key) for a server property error', () => {
    expect(
      ConfigError.isConfigError(new InvalidConfigurationError('RaftLog.open: dir must be a string')),
    ).toBe(false);
    expect(ConfigError.isConfigError(new ConfigError('node.id', 'x', 'an integer'))).toBe(true);
  });
});
