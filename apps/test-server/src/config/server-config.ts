import { isIP } from 'node:net';
import type { NodeAddress } from '@kraft/protocol';
import { InvalidConfigurationError, VoterSet } from '@kraft/raft';
import type { TlsSettings } from '@kraft/transport-tcp';
import {
  METRICS_CONFIG_DEFAULTS,
  type MetricsConfig,
  parseMetricsConfig,
} from '../metrics/metrics-config.js';
import { closestKnownKey } from './closest-key.js';
import {
  type HostAndPort,
  parseBoolean,
  parseHostAndPort,
  parseInt32,
  parseInt64,
  parseList,
} from './config-definitions.js';
import { ConfigError } from './config-error.js';
import { isListenerSslKey, parseListenerSslConfig, SSL_CONFIG_DEFAULTS } from './ssl-config.js';

/**
 * The server properties, typed: Kafka's key names and defaults (QuorumConfig, MetadataLogConfig,
 * KRaftConfigs, SocketServerConfigs). Every key here is recognised; any other key is reported as
 * unknown (a warning, as Kafka logs "These configurations ... were supplied but are not used").
 */
export interface ServerConfig {
  readonly nodeId: number;
  readonly processRoles: readonly string[];
  readonly listeners: readonly ListenerEndpoint[];
  readonly controllerListenerNames: readonly string[];
  /** The listener this node serves the quorum on: the first of `controller.listener.names`. */
  readonly controllerListener: ListenerEndpoint;
  /**
   * The controller listener's `ssl.*` settings (PEM material read) when it uses SSL; the listener
   * and the connections to the other controllers use them.
   */
  readonly controllerListenerTls: TlsSettings | undefined;
  readonly quorum: QuorumConfig;
  /** `metadata.log.dir`, else the first of `log.dirs`, else `log.dir`. */
  readonly metadataLogDir: string;
  readonly metadataLog: MetadataLogConfig;
  readonly socket: SocketConfig;
  /** `kraft.metrics.*`: the opt-in Prometheus endpoint (not a Kafka key). */
  readonly metrics: MetricsConfig;
}

export interface ListenerEndpoint extends HostAndPort {
  readonly name: string;
  readonly securityProtocol: string;
}

export interface VoterEndpoint extends HostAndPort {
  readonly nodeId: number;
}

export interface QuorumConfig {
  readonly voters: readonly VoterEndpoint[];
  readonly bootstrapServers: readonly HostAndPort[];
  readonly electionTimeoutMs: number;
  readonly fetchTimeoutMs: number;
  readonly electionBackoffMaxMs: number;
  readonly appendLingerMs: number;
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly autoJoinEnable: boolean;
  readonly fetchMaxBytes: number;
  readonly fetchSnapshotMaxBytes: number;
}

export interface MetadataLogConfig {
  /** `internal.metadata.log.segment.bytes` when set (no minimum), else `metadata.log.segment.bytes`. */
  readonly segmentBytes: number;
  readonly segmentMs: number;
  readonly maxRetentionBytes: number;
  readonly maxRetentionMs: number;
  readonly maxRecordBytesBetweenSnapshots: number;
  readonly maxSnapshotIntervalMs: number;
  readonly maxIdleIntervalMs: number;
  readonly maxBatchSizeBytes: number;
  readonly deleteDelayMs: number;
  /**
   * `internal.metadata.log.accept.flushed.data.loss` (not Kafka's): the operator's explicit
   * override when the log refuses to open because damage lies below its recovery point.
   */
  readonly acceptFlushedDataLoss: boolean;
}

export interface SocketConfig {
  readonly requestMaxBytes: number;
  readonly connectionsMaxIdleMs: number;
  readonly sendBufferBytes: number;
  readonly receiveBufferBytes: number;
  readonly listenBacklogSize: number;
  readonly queuedMaxRequests: number;
}

export interface ParsedServerConfig {
  readonly config: ServerConfig;
  /** Keys that no part of the server reads; the caller logs a warning for each. */
  readonly unknownKeys: readonly string[];
}

const MEBIBYTE = 1024 * 1024;
const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

/** Kafka's defaults, as text, exactly as an operator would write them. */
export const SERVER_CONFIG_DEFAULTS: Readonly<Record<string, string | undefined>> = {
  'node.id': undefined,
  'process.roles': 'controller',
  listeners: 'PLAINTEXT://:9092',
  'advertised.listeners': undefined,
  'listener.security.protocol.map':
    'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
  'controller.listener.names': undefined,
  'controller.quorum.voters': '',
  'controller.quorum.bootstrap.servers': '',
  'controller.quorum.election.timeout.ms': '1000',
  'controller.quorum.fetch.timeout.ms': '2000',
  'controller.quorum.election.backoff.max.ms': '1000',
  'controller.quorum.append.linger.ms': '25',
  'controller.quorum.request.timeout.ms': '2000',
  'controller.quorum.retry.backoff.ms': '20',
  'controller.quorum.auto.join.enable': 'false',
  'controller.quorum.fetch.max.bytes': String(MEBIBYTE),
  'controller.quorum.fetch.snapshot.max.bytes': String(MEBIBYTE),
  'log.dirs': undefined,
  'log.dir': '/tmp/kafka-logs',
  'metadata.log.dir': undefined,
  'metadata.log.segment.bytes': String(1024 * MEBIBYTE),
  'internal.metadata.log.segment.bytes': undefined,
  'metadata.log.segment.ms': String(SEVEN_DAYS_MS),
  'metadata.max.retention.bytes': String(100 * MEBIBYTE),
  'metadata.max.retention.ms': String(SEVEN_DAYS_MS),
  'metadata.log.max.record.bytes.between.snapshots': String(20 * MEBIBYTE),
  'metadata.log.max.snapshot.interval.ms': '3600000',
  'metadata.max.idle.interval.ms': '500',
  'internal.metadata.max.batch.size.in.bytes': String(8 * MEBIBYTE),
  'internal.metadata.delete.delay.millis': '60000',
  'internal.metadata.log.accept.flushed.data.loss': 'false',
  'socket.request.max.bytes': String(100 * MEBIBYTE),
  'connections.max.idle.ms': '600000',
  'socket.send.buffer.bytes': '102400',
  'socket.receive.buffer.bytes': '102400',
  'socket.listen.backlog.size': '50',
  'queued.max.requests': '500',
  // Accepted for compatibility with Kafka's files; the server is one event loop, so they have no effect.
  'num.network.threads': '3',
  'num.io.threads': '8',
  ...SSL_CONFIG_DEFAULTS,
  ...METRICS_CONFIG_DEFAULTS,
};

/** The security protocols this server speaks (SASL is not implemented). */
const SUPPORTED_SECURITY_PROTOCOLS: readonly string[] = ['PLAINTEXT', 'SSL'];
/** Kafka's metadata log refuses segments below 8 MiB unless the internal override is used. */
const MINIMUM_METADATA_SEGMENT_BYTES = 8 * MEBIBYTE;

class PropertyReader {
  constructor(private readonly properties: Readonly<Record<string, string>>) {}

  /** The configured text, else Kafka's default, else `undefined`. */
  text(key: string): string | undefined {
    const value = this.properties[key];
    return value ?? SERVER_CONFIG_DEFAULTS[key];
  }

  required(key: string, expected: string): string {
    const value = this.text(key);
    if (value === undefined || value.trim() === '') throw new ConfigError(key, value, expected);
    return value;
  }

  int32(key: string, minimum?: number): number {
    return parseInt32(
      key,
      this.required(key, 'expected an integer'),
      minimum === undefined ? {} : { minimum },
    );
  }

  int64(key: string, minimum?: number): number {
    return parseInt64(
      key,
      this.required(key, 'expected an integer'),
      minimum === undefined ? {} : { minimum },
    );
  }

  boolean(key: string): boolean {
    return parseBoolean(key, this.required(key, 'expected true or false'));
  }

  list(key: string): string[] {
    return parseList(this.text(key) ?? '');
  }
}

/** Validates the properties and returns the typed config; throws `ConfigError` on the first bad value. */
export function parseServerConfig(properties: Readonly<Record<string, string>>): ParsedServerConfig {
  const reader = new PropertyReader(properties);
  const nodeId = reader.int32('node.id', 0);
  const processRoles = parseProcessRoles(reader);
  const listeners = parseListeners(reader);
  const controllerListenerNames = reader.list('controller.listener.names').map((name) => name.toUpperCase());
  const controllerListener = findControllerListener(reader, listeners, controllerListenerNames);
  const quorum = parseQuorumConfig(reader);
  requireNodeIdMatchesRoles(nodeId, processRoles, quorum.voters);
  const config: ServerConfig = {
    nodeId,
    processRoles,
    listeners,
    controllerListenerNames,
    controllerListener,
    controllerListenerTls:
      controllerListener.securityProtocol === 'SSL'
        ? parseListenerSslConfig(properties, controllerListener.name)
        : undefined,
    quorum,
    metadataLogDir: parseMetadataLogDir(reader),
    metadataLog: parseMetadataLogConfig(reader),
    socket: parseSocketConfig(reader),
    metrics: parseMetricsConfig(properties),
  };
  const unknownKeys = Object.keys(properties).filter(
    (key) => !(key in SERVER_CONFIG_DEFAULTS) && !isListenerSslKey(key),
  );
  return { config, unknownKeys };
}

/**
 * The known key an unknown one is probably a misspelling of, for the "did you mean" hint; a
 * listener-prefixed `ssl.*` key is matched on the part after the prefix.
 */
export function suggestKnownKey(unknownKey: string): string | undefined {
  const prefixed = /^(listener\.name\.[^.]+\.)(.+)$/.exec(unknownKey);
  if (prefixed !== null) {
    const sslKeys = Object.keys(SSL_CONFIG_DEFAULTS);
    const suggestion = closestKnownKey(prefixed[2] as string, sslKeys);
    return suggestion === undefined ? undefined : `${prefixed[1]}${suggestion}`;
  }
  return closestKnownKey(unknownKey, Object.keys(SERVER_CONFIG_DEFAULTS));
}

/**
 * Kafka's KafkaConfig checks: a controller that is not a voter would idle as Unattached forever
 * (it never fetches from a leader and can never be elected), and a broker-only node listed as a
 * voter would count towards a majority it can never give. Dynamic quorums (no static voters) are
 * not checked, as in Kafka.
 */
function requireNodeIdMatchesRoles(
  nodeId: number,
  processRoles: readonly string[],
  voters: readonly VoterEndpoint[],
): void {
  if (voters.length === 0) return;
  const isVoter = voters.some((voter) => voter.nodeId === nodeId);
  const voterIds = `controller.quorum.voters=[${voters.map((voter) => voter.nodeId).join(', ')}]`;
  if (processRoles.includes('controller') && !isVoter) {
    throw new ConfigError(
      'node.id',
      String(nodeId),
      `If process.roles contains the 'controller' role, the node id ${nodeId} must be included in the set of voters ${voterIds}`,
    );
  }
  if (!processRoles.includes('controller') && processRoles.includes('broker') && isVoter) {
    throw new ConfigError(
      'node.id',
      String(nodeId),
      `If process.roles contains just the 'broker' role, the node id ${nodeId} must not be included in the set of voters ${voterIds}`,
    );
  }
}

function parseProcessRoles(reader: PropertyReader): string[] {
  const roles = reader.list('process.roles');
  for (const role of roles) {
    if (role !== 'broker' && role !== 'controller') {
      throw new ConfigError(
        'process.roles',
        reader.text('process.roles'),
        'expected a list of broker, controller',
      );
    }
  }
  return roles;
}

function parseListeners(reader: PropertyReader): ListenerEndpoint[] {
  const protocolMap = parseSecurityProtocolMap(reader);
  const text = reader.required('listeners', 'expected a list of NAME://host:port');
  const seen = new Set<string>();
  const listeners = parseList(text).map((entry) => {
    const match = /^([A-Za-z0-9_]+):\/\/(.*)$/.exec(entry);
    if (!match) throw new ConfigError('listeners', text, `'${entry}' is not NAME://host:port`);
    const name = (match[1] as string).toUpperCase();
    if (seen.has(name)) throw new ConfigError('listeners', text, `listener name ${name} appears twice`);
    seen.add(name);
    const securityProtocol = protocolMap.get(name);
    if (securityProtocol === undefined) {
      throw new ConfigError(
        'listeners',
        text,
        `listener ${name} has no entry in listener.security.protocol.map`,
      );
    }
    return { name, securityProtocol, ...parseHostAndPort('listeners', match[2] as string, text) };
  });
  requireDistinctListenerPorts(listeners, text);
  return listeners;
}

/**
 * Kafka's rule: two listeners cannot bind one port (port 0, "any free port", excepted), unless
 * exactly two share it and one is an IPv4 address, the other an IPv6 address.
 */
function requireDistinctListenerPorts(listeners: readonly ListenerEndpoint[], text: string): void {
  const byPort = new Map<number, ListenerEndpoint[]>();
  for (const listener of listeners) {
    if (listener.port === 0) continue;
    byPort.set(listener.port, [...(byPort.get(listener.port) ?? []), listener]);
  }
  for (const [port, sharing] of byPort) {
    if (sharing.length === 1) continue;
    const [first, second] = sharing as [ListenerEndpoint, ListenerEndpoint];
    const oneOfEachFamily =
      sharing.length === 2 &&
      isIP(first.host) !== 0 &&
      isIP(second.host) !== 0 &&
      isIP(first.host) !== isIP(second.host);
    if (oneOfEachFamily) continue;
    throw new ConfigError(
      'listeners',
      text,
      `Each listener must have a different port unless exactly one listener has an IPv4 address and the other an IPv6 address; ${sharing.map((listener) => listener.name).join(' and ')} share port ${port}`,
    );
  }
}

function parseSecurityProtocolMap(reader: PropertyReader): Map<string, string> {
  const key = 'listener.security.protocol.map';
  const text = reader.required(key, 'expected a list of LISTENER:PROTOCOL');
  const map = new Map<string, string>();
  for (const entry of parseList(text)) {
    const match = /^([A-Za-z0-9_]+):(PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL)$/i.exec(entry);
    if (!match) throw new ConfigError(key, text, `'${entry}' is not LISTENER:PROTOCOL`);
    map.set((match[1] as string).toUpperCase(), (match[2] as string).toUpperCase());
  }
  return map;
}

function findControllerListener(
  reader: PropertyReader,
  listeners: readonly ListenerEndpoint[],
  names: readonly string[],
): ListenerEndpoint {
  const key = 'controller.listener.names';
  const text = reader.text(key);
  if (names.length === 0) throw new ConfigError(key, text, 'expected at least one listener name');
  for (const name of names) {
    if (!listeners.some((listener) => listener.name === name)) {
      throw new ConfigError(
        key,
        text,
        `listener ${name} is not one of listeners (${reader.text('listeners')})`,
      );
    }
  }
  const listener = listeners.find((candidate) => candidate.name === names[0]) as ListenerEndpoint;
  if (!SUPPORTED_SECURITY_PROTOCOLS.includes(listener.securityProtocol)) {
    throw new ConfigError(
      'listener.security.protocol.map',
      reader.text('listener.security.protocol.map'),
      `controller listener ${listener.name} must use ${SUPPORTED_SECURITY_PROTOCOLS.join(' or ')} (the protocols this server speaks), not ${listener.securityProtocol}`,
    );
  }
  return listener;
}

/**
 * `controller.quorum.voters` through raft's parser (`VoterSet.fromQuorumVotersConfig`, the one
 * parser of it), plus the checks of a static quorum file: no directory ids, one voter an address.
 */
function parseVoters(reader: PropertyReader): VoterEndpoint[] {
  const key = 'controller.quorum.voters';
  const text = reader.text(key) ?? '';
  let voterSet: VoterSet;
  try {
    voterSet = VoterSet.fromQuorumVotersConfig(text);
  } catch (error) {
    if (error instanceof InvalidConfigurationError) throw new ConfigError(key, text, error.message);
    throw error;
  }
  /** Voter id by `host:port`: two voters at one address would be one process voting twice. */
  const endpoints = new Map<string, number>();
  return voterSet.voterNodes().map(({ voterKey, listeners }) => {
    const nodeId = voterKey.id;
    if (voterKey.directoryId !== undefined) {
      throw new ConfigError(key, text, `voter ${nodeId} has a directory id; static voters are id@host:port`);
    }
    // A parsed static voter always has its one address, under the default listener name.
    const { host, port } = listeners.firstAddress() as NodeAddress;
    const address = `${host.toLowerCase()}:${port}`;
    const sameAddress = endpoints.get(address);
    if (sameAddress !== undefined) {
      throw new ConfigError(
        key,
        text,
        `voters ${sameAddress} and ${nodeId} have the same endpoint ${host}:${port}`,
      );
    }
    endpoints.set(address, nodeId);
    return { nodeId, host, port };
  });
}

function parseQuorumConfig(reader: PropertyReader): QuorumConfig {
  const voters = parseVoters(reader);
  const bootstrapText = reader.text('controller.quorum.bootstrap.servers') ?? '';
  const bootstrapServers = parseList(bootstrapText).map((entry) =>
    parseHostAndPort('controller.quorum.bootstrap.servers', entry, bootstrapText),
  );
  if (voters.length === 0 && bootstrapServers.length === 0) {
    throw new ConfigError(
      'controller.quorum.voters',
      reader.text('controller.quorum.voters'),
      'either controller.quorum.voters or controller.quorum.bootstrap.servers must be set',
    );
  }
  return {
    voters,
    bootstrapServers,
    electionTimeoutMs: reader.int32('controller.quorum.election.timeout.ms', 0),
    fetchTimeoutMs: reader.int32('controller.quorum.fetch.timeout.ms', 0),
    electionBackoffMaxMs: reader.int32('controller.quorum.election.backoff.max.ms', 0),
    appendLingerMs: reader.int32('controller.quorum.append.linger.ms', 0),
    requestTimeoutMs: reader.int32('controller.quorum.request.timeout.ms', 0),
    retryBackoffMs: reader.int32('controller.quorum.retry.backoff.ms', 0),
    autoJoinEnable: reader.boolean('controller.quorum.auto.join.enable'),
    fetchMaxBytes: reader.int32('controller.quorum.fetch.max.bytes', 1),
    fetchSnapshotMaxBytes: reader.int32('controller.quorum.fetch.snapshot.max.bytes', 1),
  };
}

function parseMetadataLogDir(reader: PropertyReader): string {
  const metadataLogDir = reader.text('metadata.log.dir')?.trim();
  if (metadataLogDir !== undefined && metadataLogDir !== '') return metadataLogDir;
  const logDirs = reader.list('log.dirs');
  if (logDirs.length > 0) {
    const first = logDirs[0] as string;
    if (first === '')
      throw new ConfigError('log.dirs', reader.text('log.dirs'), 'expected a list of directories');
    return first;
  }
  return reader.required('log.dir', 'expected a directory').trim();
}

function parseMetadataLogConfig(reader: PropertyReader): MetadataLogConfig {
  const internalSegmentBytes = reader.text('internal.metadata.log.segment.bytes');
  const segmentBytes =
    internalSegmentBytes === undefined
      ? reader.int32('metadata.log.segment.bytes', MINIMUM_METADATA_SEGMENT_BYTES)
      : parseInt32('internal.metadata.log.segment.bytes', internalSegmentBytes, { minimum: 1 });
  return {
    segmentBytes,
    segmentMs: reader.int64('metadata.log.segment.ms', 1),
    maxRetentionBytes: reader.int64('metadata.max.retention.bytes', -1),
    maxRetentionMs: reader.int64('metadata.max.retention.ms', -1),
    maxRecordBytesBetweenSnapshots: reader.int64('metadata.log.max.record.bytes.between.snapshots', 1),
    maxSnapshotIntervalMs: reader.int64('metadata.log.max.snapshot.interval.ms', 0),
    maxIdleIntervalMs: reader.int32('metadata.max.idle.interval.ms', 0),
    maxBatchSizeBytes: reader.int32('internal.metadata.max.batch.size.in.bytes', 1),
    deleteDelayMs: reader.int64('internal.metadata.delete.delay.millis', 0),
    acceptFlushedDataLoss: reader.boolean('internal.metadata.log.accept.flushed.data.loss'),
  };
}

function parseSocketConfig(reader: PropertyReader): SocketConfig {
  reader.int32('num.network.threads', 1);
  reader.int32('num.io.threads', 1);
  return {
    requestMaxBytes: reader.int32('socket.request.max.bytes', 1),
    connectionsMaxIdleMs: reader.int64('connections.max.idle.ms', -1),
    sendBufferBytes: reader.int32('socket.send.buffer.bytes', -1),
    receiveBufferBytes: reader.int32('socket.receive.buffer.bytes', -1),
    listenBacklogSize: reader.int32('socket.listen.backlog.size', 1),
    queuedMaxRequests: reader.int32('queued.max.requests', 1),
  };
}
