import type { LogConfigOptions } from '@kraft/log';
import {
  checkInteger,
  checkKnownKeys,
  checkMethods,
  checkNonEmptyString,
  checkOptionsObject,
  InvalidConfigurationError,
  LOGGER_METHODS,
  type Logger,
  type Uuid,
} from '@kraft/protocol';
import type { TlsSettings } from '@kraft/transport-tcp';
import type { QuorumConfig } from '../quorum-config.js';
import type { Listener } from '../raft-client.js';
import type { RaftNodeListener } from './raft-node-listener.js';
import type { RecordSerde } from './record-serde.js';

/** Where a value sits in the replicated log: its offset and the epoch of the leader that wrote it. */
export interface LogPosition {
  readonly offset: number;
  readonly epoch: number;
}

/** Appends a snapshot's values; the node cuts them into batches. */
export interface StateMachineSnapshotWriter<T> {
  /** The position the snapshot covers up to (inclusive): the last value applied. */
  readonly lastContained: LogPosition;
  /** Adds values to the snapshot, in the order `restore` will read them. */
  append(values: readonly T[]): void;
}

/** A snapshot's values in order, decoded as they are read. */
export interface StateMachineSnapshotReader<T> extends Iterable<T> {
  /** The position the snapshot covers up to (inclusive); the next applied value follows it. */
  readonly lastContained: LogPosition;
}

/**
 * The application's replicated state. Every call runs on the event loop between raft polls, in
 * log order, on every node; it must be deterministic and must not block for long.
 */
export interface StateMachine<T> {
  /** One committed value, once, in offset order (after a restore, from the snapshot onwards). */
  apply(value: T, position: LogPosition): void;
  /** Writes the whole state as of the last applied value. */
  snapshot(writer: StateMachineSnapshotWriter<T>): void;
  /** Replaces the whole state with a snapshot's (on start, or when the leader sends one). */
  restore(reader: StateMachineSnapshotReader<T>): void;
}

/** RaftNode's own settings beside the `controller.quorum.*` ones. */
export interface RaftNodeSettings {
  /** How long `propose` waits for room in the accumulator and then for the outcome. Default 30 s. */
  readonly proposeTimeoutMs: number;
  /** A snapshot is taken after this many applied bytes since the last one. Default 20 MiB (Kafka's `metadata.log.max.record.bytes.between.snapshots`). */
  readonly snapshotEveryBytes: number;
  /** A snapshot is also taken after this many applied values; 0 turns the count off. Default 0. */
  readonly snapshotEveryRecords: number;
  /** How long `close()` lets the leader resign and the log flush. Default 5 s. */
  readonly shutdownTimeoutMs: number;
}

/** `RaftNode`'s `config`: any `controller.quorum.*` setting and any RaftNode setting. */
export type RaftNodeConfig = Partial<QuorumConfig> & Partial<RaftNodeSettings>;

/** The defaults of RaftNode's own settings (see RaftNodeSettings for each). */
export const DEFAULT_RAFT_NODE_SETTINGS: RaftNodeSettings = Object.freeze({
  proposeTimeoutMs: 30_000,
  snapshotEveryBytes: 20 * 1024 * 1024,
  snapshotEveryRecords: 0,
  shutdownTimeoutMs: 5_000,
});

/**
 * RaftNode's `log`: the metadata log's settings in camelCase (`@kraft/log`'s `LogConfigOptions`:
 * `segmentBytes` for `metadata.log.segment.bytes`, `retentionMaxBytes` for
 * `metadata.max.retention.bytes`, ...), each with Kafka's default.
 */
export type RaftNodeLogConfig = LogConfigOptions;

/** What `RaftNode.bind` needs: everything but the voters. */
export interface RaftNodeBindOptions<T> {
  /** `node.id`. */
  readonly nodeId: number;
  /** The log directory: `meta.properties`, the `__cluster_metadata-0` log and its quorum-state. */
  readonly directory: string;
  /** Kafka's `listeners` (`CONTROLLER://127.0.0.1:9093`); port 0 binds a free port. */
  readonly listeners: string;
  /** Which of `listeners` the quorum speaks on (`controller.listener.names`). Default: the first. */
  readonly controllerListenerName?: string;
  /** Kafka's `listener.security.protocol.map` for listener names that are not protocols. */
  readonly listenerSecurityProtocolMap?: Readonly<Record<string, string>>;
  /** `cluster.id`: written to `meta.properties` on format, checked on every start. */
  readonly clusterId: string;
  /** The directory id; a random one is chosen on format when absent. */
  readonly directoryId?: Uuid;
  /** Turns values into record bytes on propose and back for the state machine and `listener`. */
  readonly serde: RecordSerde<T>;
  readonly stateMachine?: StateMachine<T>;
  /**
   * Kafka's `RaftClient.Listener<T>`: committed batches (and snapshots to load) with their values
   * decoded by `serde`, never one at or above the high watermark.
   */
  readonly listener?: RaftNodeListener<T>;
  /**
   * A listener of the raw client: the same calls with the batches' serialized bytes, for a
   * listener that decodes itself (`@kraft/metadata`'s `MetadataLoader`, with its own serde).
   */
  readonly rawListener?: Listener;
  readonly config?: RaftNodeConfig;
  /**
   * The metadata log's settings (`metadata.log.segment.bytes`, `metadata.max.retention.bytes`,
   * ...; `@kraft/log`'s `LogConfigOptions`), Kafka's defaults where absent. Checked by `bind`
   * before the directory is locked. Segments wholly below the latest snapshot are deleted once
   * the log and its snapshots exceed the retention, so a follower that falls behind the log start
   * catches up from a snapshot (FetchSnapshot).
   */
  readonly log?: RaftNodeLogConfig;
  readonly logger?: Logger;
  /** The `ssl.*` material, for listeners whose security protocol is SSL. */
  readonly tls?: TlsSettings;
}

/** What `RaftNode.open` needs. */
export interface RaftNodeOptions<T> extends RaftNodeBindOptions<T> {
  /** Kafka's `controller.quorum.voters` (`1@127.0.0.1:9093,2@127.0.0.1:9094`); must list this node. */
  readonly voters: string;
}

const NODE_SETTING_KEYS = Object.keys(DEFAULT_RAFT_NODE_SETTINGS) as (keyof RaftNodeSettings)[];

/** The config split in the quorum's part (checked by the client) and RaftNode's own settings. */
export function splitRaftNodeConfig(config: RaftNodeConfig = {}): {
  readonly quorum: Partial<QuorumConfig>;
  readonly settings: RaftNodeSettings;
} {
  checkOptionsObject('RaftNode: config', config);
  const quorum: Record<string, unknown> = {};
  const settings: Record<string, number> = { ...DEFAULT_RAFT_NODE_SETTINGS };
  for (const [key, value] of Object.entries(config)) {
    if (!(NODE_SETTING_KEYS as string[]).includes(key)) {
      quorum[key] = value;
      continue;
    }
    settings[key] = checkInteger(`RaftNode: config.${key}`, value, {
      minimum: key === 'snapshotEveryRecords' ? 0 : 1,
    });
  }
  return { quorum: quorum as Partial<QuorumConfig>, settings: settings as unknown as RaftNodeSettings };
}

const BIND_OPTION_KEYS = [
  'nodeId',
  'directory',
  'listeners',
  'controllerListenerName',
  'listenerSecurityProtocolMap',
  'clusterId',
  'directoryId',
  'serde',
  'stateMachine',
  'listener',
  'rawListener',
  'config',
  'log',
  'logger',
  'tls',
];

/** Checks what a JavaScript caller can get wrong; each failure names the option. */
export function checkRaftNodeBindOptions<T>(options: RaftNodeBindOptions<T>, allowVoters: boolean): void {
  checkOptionsObject('RaftNode', options);
  checkKnownKeys('RaftNode', options, allowVoters ? [...BIND_OPTION_KEYS, 'voters'] : BIND_OPTION_KEYS);
  checkInteger('RaftNode: nodeId', options.nodeId, { minimum: 0, maximum: 0x7fff_ffff });
  checkNonEmptyString('RaftNode: directory', options.directory);
  checkNonEmptyString('RaftNode: listeners', options.listeners);
  checkNonEmptyString('RaftNode: clusterId', options.clusterId);
  if (options.controllerListenerName !== undefined) {
    checkNonEmptyString('RaftNode: controllerListenerName', options.controllerListenerName);
  }
  checkMethods('RaftNode: serde', options.serde, ['recordSize', 'write', 'read']);
  if (options.stateMachine !== undefined) {
    checkMethods('RaftNode: stateMachine', options.stateMachine, ['apply', 'snapshot', 'restore']);
  }
  for (const key of ['listener', 'rawListener'] as const) {
    const listener = options[key];
    if (listener !== undefined)
      checkMethods(`RaftNode: ${key}`, listener, ['handleCommit', 'handleLoadSnapshot']);
  }
  if (options.logger !== undefined) checkMethods('RaftNode: logger', options.logger, LOGGER_METHODS);
  if (options.tls !== undefined) checkOptionsObject('RaftNode: tls', options.tls);
}

/** `voters` must be a non-empty `controller.quorum.voters` string; the parse itself is VoterSet's. */
export function checkVotersOption(voters: unknown): string {
  if (typeof voters !== 'string' || voters.trim().length === 0) {
    throw new InvalidConfigurationError(
      `RaftNode: voters must be a controller.quorum.voters string such as "1@127.0.0.1:9093", got ${typeof voters === 'string' ? '""' : typeof voters}`,
    );
  }
  return voters;
}
