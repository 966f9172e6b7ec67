/**
 * `kraft-storage.sh format`: Kafka's `StorageTool.runFormatCommand` and `Formatter` for the one
 * directory the test server uses, its metadata log dir. Everything is decided by `planFormat`
 * before anything is written (every refusal is a `StorageRefusedError`); `applyFormat` then
 * writes the bootstrap checkpoint (dynamic quorums only) and `meta.properties` last, as Kafka's
 * formatter does: `meta.properties` is what makes a directory formatted, so a crash in between
 * leaves a directory that is still unformatted and can be formatted again.
 */
import { dirname, join } from 'node:path';
import {
  LogDirectoryLock,
  META_PROPERTIES_FILE,
  type MetaProperties,
  readMetaProperties,
  writeMetaProperties,
} from '@kraft/log';
import { KRaftError, Uuid } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import type { ServerConfig } from '../config/server-config.js';
import { KRAFT_VERSION_DYNAMIC, writeBootstrapCheckpoint } from './bootstrap-checkpoint.js';
import { type DynamicVoter, isReservedDirectoryId } from './dynamic-voters.js';
import { StorageRefusedError } from './storage-refused-error.js';

/** Which of Kafka's mutually exclusive quorum flags was given, if any. */
export type InitialControllers =
  | { readonly kind: 'standalone' }
  | { readonly kind: 'initial-controllers'; readonly voters: readonly DynamicVoter[] }
  | { readonly kind: 'no-initial-controllers' }
  | { readonly kind: 'none' };

export interface FormatOptions {
  /** For messages: the config file the settings came from. */
  readonly configPath: string;
  /** `--cluster-id`: any string, as in Kafka (KIP-78 never required a Uuid). */
  readonly clusterId: string;
  readonly initialControllers: InitialControllers;
  readonly ignoreFormatted: boolean;
}

/** What the formatted directory is, in Kafka's words (`Formatter.DirectoryType`). */
export type DirectoryType = 'metadata directory' | 'dynamic metadata voter directory';

export interface FormatPlan {
  readonly directory: string;
  readonly directoryType: DirectoryType;
  readonly metaProperties: MetaProperties & { readonly directoryId: Uuid };
  /** kraft.version 1 when the config has no static voters (Kafka's `hasDynamicQuorum`), else 0. */
  readonly kraftVersion: 0 | 1;
  /** The bootstrap checkpoint to write (dynamic quorums: `--standalone`, `--initial-controllers`). */
  readonly bootstrap:
    | {
        readonly partitionDirectory: string;
        readonly voters: readonly DynamicVoter[];
        readonly listenerName: string;
      }
    | undefined;
}

export type FormatDecision =
  | { readonly kind: 'format'; readonly plan: FormatPlan }
  /** `--ignore-formatted` on a formatted directory: nothing to do (exit 0). */
  | { readonly kind: 'already-formatted'; readonly directory: string };

export interface FormatContext {
  readonly fileSystem: FileSystem;
  /** The partition directory name the checkpoint goes into (the test server's `__raft_performance_test-0`). */
  readonly partitionDirectoryName: string;
  /** A fresh directory id (KIP-858 rules); random in production. */
  readonly newDirectoryId?: () => Uuid;
}

const QUORUM_VOTERS = 'controller.quorum.voters';
const QUORUM_BOOTSTRAP_SERVERS = 'controller.quorum.bootstrap.servers';

/**
 * Kafka's checks, in Kafka's order, then the directory's state. Returns what to write, or that
 * there is nothing to do; throws `StorageRefusedError` for every refusal.
 */
export function planFormat(
  config: ServerConfig,
  options: FormatOptions,
  context: FormatContext,
): FormatDecision {
  if (config.processRoles.length === 0) {
    throw new StorageRefusedError(
      'The kafka configuration file appears to be for a legacy cluster. Formatting is only supported for clusters in KRaft mode.',
    );
  }
  const staticVotersEmpty = config.quorum.voters.length === 0;
  const { initialControllers } = options;
  const dynamicFlag =
    initialControllers.kind === 'standalone' || initialControllers.kind === 'initial-controllers';
  if (!staticVotersEmpty && dynamicFlag) {
    throw new StorageRefusedError(
      `You cannot specify ${QUORUM_VOTERS} and format the node with --initial-controllers or --standalone. ` +
        `If you want to use dynamic quorum, please remove ${QUORUM_VOTERS} and specify ${QUORUM_BOOTSTRAP_SERVERS} instead.`,
    );
  }
  const isController = config.processRoles.includes('controller');
  const newDirectoryId = context.newDirectoryId ?? (() => Uuid.randomDirectoryId());
  const voters = initialVoters(config, initialControllers, isController, newDirectoryId);
  if (isController && staticVotersEmpty && initialControllers.kind === 'none') {
    throw new StorageRefusedError(
      `Because ${QUORUM_VOTERS} is not set on this controller, you must specify one of the following: ` +
        '--standalone, --initial-controllers, or --no-initial-controllers.',
    );
  }
  // As Kafka: a node left out of --initial-controllers is formatted as a non-voter (an observer
  // that can be added later), with a directory id of its own.
  const self = voters?.find((voter) => voter.nodeId === config.nodeId);
  const directory = config.metadataLogDir;
  const existing = readExistingMetaProperties(context.fileSystem, directory);
  if (existing !== undefined) {
    verifyExisting(existing, directory, options.clusterId, config.nodeId);
    if (!options.ignoreFormatted) {
      throw new StorageRefusedError(
        `Log directory ${directory} is already formatted. Use --ignore-formatted to ignore this directory and format the others.`,
        { directory },
      );
    }
    return { kind: 'already-formatted', directory };
  }
  return {
    kind: 'format',
    plan: {
      directory,
      directoryType: self === undefined ? 'metadata directory' : 'dynamic metadata voter directory',
      metaProperties: {
        version: 1,
        clusterId: options.clusterId,
        nodeId: config.nodeId,
        directoryId: self?.directoryId ?? newDirectoryId(),
      },
      kraftVersion: staticVotersEmpty ? KRAFT_VERSION_DYNAMIC : 0,
      bootstrap:
        voters === undefined
          ? undefined
          : {
              partitionDirectory: join(directory, context.partitionDirectoryName),
              voters,
              listenerName: config.controllerListener.name,
            },
    },
  };
}

/**
 * The initial voters of `--initial-controllers`, or this node alone for `--standalone` (Kafka's
 * `createStandaloneDynamicVoters`: the first controller listener, `localhost` when it names no
 * host, a random directory id); undefined for the other flags.
 */
function initialVoters(
  config: ServerConfig,
  initialControllers: InitialControllers,
  isController: boolean,
  newDirectoryId: () => Uuid,
): readonly DynamicVoter[] | undefined {
  if (initialControllers.kind === 'initial-controllers') return initialControllers.voters;
  if (initialControllers.kind !== 'standalone') return undefined;
  if (!isController) throw new StorageRefusedError('You can only use --standalone on a controller.');
  const listener = config.controllerListener;
  return [
    {
      nodeId: config.nodeId,
      host: listener.host === '' ? 'localhost' : listener.host,
      port: listener.port,
      directoryId: newDirectoryId(),
    },
  ];
}

function readExistingMetaProperties(fileSystem: FileSystem, directory: string): MetaProperties | undefined {
  try {
    return readMetaProperties(fileSystem, directory);
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    // Kafka counts the directory as an I/O error directory and, with no other, has none left.
    throw new StorageRefusedError(
      `I/O error trying to read log directory ${directory} (${error.message}). No available log directories to format.`,
      { directory, cause: error },
    );
  }
}

/** Kafka's `MetaPropertiesEnsemble.verify` on the one directory: these hold even with --ignore-formatted. */
function verifyExisting(
  existing: MetaProperties,
  directory: string,
  clusterId: string,
  nodeId: number,
): void {
  const path = join(directory, META_PROPERTIES_FILE);
  if (existing.clusterId !== undefined && existing.clusterId !== clusterId) {
    throw new StorageRefusedError(
      `Invalid cluster.id in: ${path}. Expected ${clusterId}, but read ${existing.clusterId}`,
      { directory },
    );
  }
  if (existing.nodeId !== undefined && existing.nodeId !== nodeId) {
    throw new StorageRefusedError(
      `Stored node id ${existing.nodeId} doesn't match previous node id ${nodeId} in ${path}. ` +
        'If you moved your data, make sure your configured node id matches. ' +
        'If you intend to create a new node, you should remove all data in your data directories.',
      { directory },
    );
  }
  const directoryId = existing.directoryId;
  if (directoryId !== undefined && isReservedDirectoryId(directoryId)) {
    throw new StorageRefusedError(
      `Invalid reserved directory ID ${directoryId.toString()} found in ${directory}`,
      {
        directory,
      },
    );
  }
}

/** What `applyFormat` wrote. */
export interface FormatResult {
  readonly metaPropertiesPath: string;
  readonly checkpointPath: string | undefined;
}

/**
 * Writes the plan under the directory's lock (a server running on it, or a second format, is
 * refused with `LogDirectoryLockedError`), after checking again that nobody formatted it since
 * `planFormat` looked.
 */
export function applyFormat(plan: FormatPlan, fileSystem: FileSystem, nowMs: number): FormatResult {
  const existed = fileSystem.exists(plan.directory);
  const lock = LogDirectoryLock.acquire(fileSystem, plan.directory);
  try {
    // The new directory's entry in its parent (mkdir -p creates at most the missing levels; the
    // log dir itself is the one that matters, its content is synced by the writes below).
    if (!existed) fileSystem.syncDirectory(dirname(plan.directory));
    if (readExistingMetaProperties(fileSystem, plan.directory) !== undefined) {
      throw new StorageRefusedError(`Log directory ${plan.directory} was formatted while this format ran.`, {
        directory: plan.directory,
      });
    }
    const checkpointPath =
      plan.bootstrap === undefined
        ? undefined
        : writeBootstrapCheckpoint(fileSystem, plan.bootstrap.partitionDirectory, {
            voters: plan.bootstrap.voters,
            listenerName: plan.bootstrap.listenerName,
            timestampMs: nowMs,
          });
    writeMetaProperties(fileSystem, plan.directory, plan.metaProperties, new Date(nowMs));
    return { metaPropertiesPath: join(plan.directory, META_PROPERTIES_FILE), checkpointPath };
  } finally {
    lock.release();
  }
}
