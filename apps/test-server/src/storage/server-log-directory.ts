/**
 * What the test server checks of its log dir at start, beyond raft's own `meta.properties`
 * checks: a bootstrap checkpoint it cannot run yet, and the cluster id a formatted dir carries.
 */
import { META_PROPERTIES_FILE, readMetaProperties } from '@kraft/log';
import { KRaftError } from '@kraft/protocol';
import { LogDirectoryError } from '@kraft/raft';
import type { FileSystem } from '@kraft/records';
import { bootstrapCheckpointPaths, readBootstrapCheckpoint } from './bootstrap-checkpoint.js';
import { UnformattedLogDirectoryError } from './unformatted-log-directory-error.js';
import { UnsupportedKRaftVersionError } from './unsupported-kraft-version-error.js';

/**
 * Refuses a log dir whose bootstrap checkpoint (in the server's partition directory, or in
 * Kafka's `__cluster_metadata-0` when the dir was formatted by Kafka's tool) is at kraft.version
 * 1 or more. Reads only: a refused dir is left as it was.
 *
 * @throws UnsupportedKRaftVersionError naming the checkpoint.
 * @throws BootstrapCheckpointError when a checkpoint is there but cannot be read.
 */
export function requireStaticBootstrapCheckpoint(
  fileSystem: FileSystem,
  metadataLogDir: string,
  partitionDirectoryName: string,
): void {
  for (const path of bootstrapCheckpointPaths(metadataLogDir, partitionDirectoryName)) {
    const checkpoint = readBootstrapCheckpoint(fileSystem, path);
    if (checkpoint !== undefined && checkpoint.kraftVersion > 0) {
      throw new UnsupportedKRaftVersionError(
        path,
        checkpoint.kraftVersion,
        (checkpoint.voters ?? []).map((voter) => voter.voterId),
      );
    }
  }
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
