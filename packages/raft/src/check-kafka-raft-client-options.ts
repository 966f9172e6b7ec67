import {
  checkInstance,
  checkInteger,
  checkKnownKeys,
  checkMethods,
  checkNonEmptyString,
  checkOptionsObject,
  InvalidConfigurationError,
  LOGGER_METHODS,
  Uuid,
} from '@kraft/protocol';
import { Endpoints } from './endpoints.js';
import type { NetworkChannel } from './ports/network-channel.js';
import type { QuorumStateStore } from './ports/quorum-state-store.js';
import type { RaftLog } from './ports/raft-log.js';
import type { Random } from './ports/random.js';
import { DEFAULT_RPC_VERSIONS } from './rpc/rpc-versions.js';
import { VoterSet } from './voter-set.js';

const OWNER = 'KafkaRaftClient';

/** Every method of the `RaftLog` port. */
const RAFT_LOG_METHODS = [
  'appendAsLeader',
  'appendAsFollower',
  'read',
  'startOffset',
  'endOffset',
  'highWatermark',
  'updateHighWatermark',
  'lastFetchedEpoch',
  'endOffsetForEpoch',
  'validateOffsetAndEpoch',
  'truncateTo',
  'truncateToLatestSnapshot',
  'freezeFetchedSnapshot',
  'initializeLeaderEpoch',
  'flush',
  'lastFlushedOffset',
  'createNewSnapshot',
  'createNewSnapshotUnchecked',
  'readSnapshot',
  'latestSnapshotId',
  'earliestSnapshotId',
  'onSnapshotFrozen',
  'deleteBeforeSnapshot',
  'maybeClean',
  'close',
] as const satisfies readonly (keyof RaftLog)[];
const NETWORK_CHANNEL_METHODS = [
  'newCorrelationId',
  'send',
  'sendResponse',
  'updateEndpoint',
] as const satisfies readonly (keyof NetworkChannel)[];
const QUORUM_STATE_STORE_METHODS = [
  'readElectionState',
  'writeElectionState',
  'clear',
  'path',
] as const satisfies readonly (keyof QuorumStateStore)[];
const RANDOM_METHODS = ['nextInt'] as const satisfies readonly (keyof Random)[];

/**
 * Checks what a JavaScript caller can get wrong in `KafkaRaftClient`'s options (the quorum
 * settings are checked by `resolveQuorumConfig`); each failure names the option.
 */
export function checkKafkaRaftClientOptions(options: unknown): void {
  checkOptionsObject(OWNER, options);
  const given = options as Record<string, unknown>;
  const name = (option: string): string => `${OWNER}: ${option}`;
  if (given['nodeId'] !== undefined) checkInteger(name('nodeId'), given['nodeId'], { minimum: 0 });
  checkInstance(
    name('voters'),
    given['voters'],
    VoterSet,
    ' (VoterSet.fromQuorumVotersConfig or new VoterSet)',
  );
  checkMethods(name('log'), given['log'], RAFT_LOG_METHODS);
  checkMethods(name('network'), given['network'], NETWORK_CHANNEL_METHODS);
  checkMethods(name('quorumStateStore'), given['quorumStateStore'], QUORUM_STATE_STORE_METHODS);
  checkMethods(name('random'), given['random'], RANDOM_METHODS);
  if (given['directoryId'] !== undefined) checkInstance(name('directoryId'), given['directoryId'], Uuid);
  const clusterId = given['clusterId'];
  if (clusterId !== undefined && clusterId !== null) checkNonEmptyString(name('clusterId'), clusterId);
  if (given['listenerName'] !== undefined) checkNonEmptyString(name('listenerName'), given['listenerName']);
  if (given['localEndpoints'] !== undefined) {
    checkInstance(name('localEndpoints'), given['localEndpoints'], Endpoints);
  }
  if (given['maxQueuedMessages'] !== undefined) {
    checkInteger(name('maxQueuedMessages'), given['maxQueuedMessages'], { minimum: 1 });
  }
  if (given['listenerReadBufferBytes'] !== undefined) {
    checkInteger(name('listenerReadBufferBytes'), given['listenerReadBufferBytes'], { minimum: 1 });
  }
  if (given['autoJoin'] !== undefined && typeof given['autoJoin'] !== 'boolean') {
    throw new InvalidConfigurationError(
      `${name('autoJoin')} must be a boolean, got ${String(given['autoJoin'])}`,
    );
  }
  checkBootstrapServers(given['bootstrapServers']);
  checkKraftVersion(given['kraftVersion']);
  checkRpcVersions(given['rpcVersions']);
  checkTopic(given['topic']);
  if (given['logger'] !== undefined) checkMethods(name('logger'), given['logger'], LOGGER_METHODS);
}

/** Highest TCP port. */
const MAX_PORT = 65_535;

function checkBootstrapServers(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    throw new InvalidConfigurationError(`${OWNER}: bootstrapServers must be an array of { host, port }`);
  }
  value.forEach((server: unknown, index) => {
    const name = `${OWNER}: bootstrapServers[${index}]`;
    checkOptionsObject(name, server);
    const address = server as Record<string, unknown>;
    checkNonEmptyString(`${name}.host`, address['host']);
    checkInteger(`${name}.port`, address['port'], { minimum: 1, maximum: MAX_PORT });
  });
}

function checkKraftVersion(value: unknown): void {
  if (value !== undefined && value !== 0 && value !== 1) {
    throw new InvalidConfigurationError(`${OWNER}: kraftVersion must be 0 or 1, got ${String(value)}`);
  }
}

function checkRpcVersions(value: unknown): void {
  if (value === undefined) return;
  checkOptionsObject(`${OWNER}: rpcVersions`, value);
  checkKnownKeys(`${OWNER}: rpcVersions`, value as object, Object.keys(DEFAULT_RPC_VERSIONS));
  for (const [api, version] of Object.entries(value as Record<string, unknown>)) {
    if (version !== undefined) checkInteger(`${OWNER}: rpcVersions.${api}`, version, { minimum: 0 });
  }
}

function checkTopic(value: unknown): void {
  if (value === undefined) return;
  checkOptionsObject(`${OWNER}: topic`, value);
  const topic = value as Record<string, unknown>;
  checkNonEmptyString(`${OWNER}: topic.name`, topic['name']);
  checkInstance(`${OWNER}: topic.topicId`, topic['topicId'], Uuid);
}
