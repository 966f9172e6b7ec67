/**
 * What the test server checks of its log dir at start, beyond raft's own `meta.properties`
 * checks: the bootstrap checkpoint it starts from (or cannot), and the cluster id a formatted dir
 * carries.
 */
import { META_PROPERTIES_FILE, readMetaProperties } from '@kraft/log';
import { KRaftError } from '@kraft/protocol';
import { LogDirectoryError } from '@kraft/raft';
import type { FileSystem } from '@kraft/records';
import {
  type BootstrapCheckpoint,
  bootstrapCheckpointPaths,
  readBootstrapCheckpoint,
} from './bootstrap-checkpoint.js';
import { UnformattedLogDirectoryError } from './unformatted-log-directory-error.js';
import { UnsupportedKRaftVersionError } from './unsupported-kraft-version-error.js';

/** The highest kraft.version the server runs: 1, voters from the log (KIP-853). */
export const MAX_SUPPORTED_KRAFT_VERSION = 1;

/**
 * The bootstrap checkpoint the server starts its log from: the one `kraft-storage.sh format
 * --standalone | --initial-controllers` wrote into the server's partition directory, or undefined
 * (a static quorum, or a dir formatted with `--no-initial-controllers`). Reads only: a refused
 * dir is left as it was.
 *
 * @throws UnsupportedKRaftVersionError for a kraft.version above 1, and for a dynamic quorum's
 *   checkpoint in Kafka's `__cluster_metadata-0` (formatted by Kafka's tool for its controllers),
 *   which the server's partition would not see: started anyway, the node would run without the
 *   voters the operator formatted it with.
 * @throws BootstrapCheckpointError when a checkpoint is there but cannot be read.
 */
export function readServerBootstrapCheckpoint(
  fileSystem: FileSystem,
  metadataLogDir: string,
  partitionDirectoryName: string,
): BootstrapCheckpoint | undefined {
  const [own, ...others] = bootstrapCheckpointPaths(metadataLogDir, partitionDirectoryName);
  for (const path of others) {
    const checkpoint = readBootstrapCheckpoint(fileSystem, path);
    if (checkpoint !== undefined && checkpoint.kraftVersion > 0) {
      throw new UnsupportedKRaftVersionError(
        path,
        checkpoint.kraftVersion,
        voterIdsOf(checkpoint),
        `it is in Kafka's metadata partition, and this server replicates ${partitionDirectoryName}. ` +
          'Format the dir with kraft-storage.sh format, which writes the checkpoint where the server reads it',
      );
    }
  }
  const checkpoint = own === undefined ? undefined : readBootstrapCheckpoint(fileSystem, own);
  if (checkpoint !== undefined && checkpoint.kraftVersion > MAX_SUPPORTED_KRAFT_VERSION) {
    throw new UnsupportedKRaftVersionError(
      checkpoint.path,
      checkpoint.kraftVersion,
      voterIdsOf(checkpoint),
      `this server runs kraft.version 0 (static voters) and ${MAX_SUPPORTED_KRAFT_VERSION} (voters from the log) only`,
    );
  }
  return checkpoint;
}

function voterIdsOf(checkpoint: BootstrapCheckpoint): number[] {
  return (checkpoint.voters ?? []).map((voter) => voter.voterId);
}

/**
 * The cluster id the node runs with: the one in `meta.properties` when the dir is formatted (by
 * `kraft-storage.sh format` or an earlier start), else `unformattedClusterId` (the dir is about to
 * be formatted with it), or, with `requireFormatted`, a refusal.
 *
 * @throws UnformattedLogDirectoryError for an unformatted dir under `requireFormatted`.
 * @throws LogDirectoryError when `meta.properties` cannot be read.
 */
export function logDirectoryClusterId(
  fileSystem: FileSystem,
  directory: string,
  options: { readonly requireFormatted: boolean; readonly unformattedClusterId: string },
): { readonly clusterId: string; readonly formatted: boolean } {
  let clusterId: string | undefined;
  let formatted: boolean;
  try {
    const existing = readMetaProperties(fileSystem, directory);
    formatted = existing !== undefined;
    clusterId = existing?.clusterId;
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    throw new LogDirectoryError(directory, `${META_PROPERTIES_FILE} cannot be used (${error.message})`, {
      cause: error,
    });
  }
  if (!formatted && options.requireFormatted) throw new UnformattedLogDirectoryError(directory);
  // A formatted file without a cluster id (a version 0 file) is refused by raft's checks next.
  return { clusterId: clusterId ?? options.unformattedClusterId, formatted };
}
