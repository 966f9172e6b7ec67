import {
  META_PROPERTIES_FILE,
  type MetaProperties,
  metaPropertiesMismatches,
  readMetaProperties,
  writeMetaProperties,
} from '@kraft/log';
import { KRaftError, Uuid } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import { LogDirectoryError } from '../errors/log-directory-error.js';

/** Who owns a log directory: what its `meta.properties` (version 1, the KRaft form) records. */
export interface LogDirectoryOwner {
  readonly clusterId: string;
  readonly nodeId: number;
  /**
   * The directory id the node was given (Kafka's `--replica-directory-id`). Undefined: a fresh
   * random one is written on format, and the one on disk is adopted afterwards.
   */
  readonly directoryId?: Uuid | undefined;
}

/** What `ensureLogDirectoryFormatted` found or did, and the directory id now on disk. */
export interface LogDirectoryFormat {
  readonly formatted: boolean;
  readonly directoryId: Uuid;
}

function readExisting(fileSystem: FileSystem, directory: string): MetaProperties | undefined {
  try {
    return readMetaProperties(fileSystem, directory);
  } catch (error) {
    const reason = KRaftError.isInstance(error) ? error.message : String(error);
    throw new LogDirectoryError(directory, `${META_PROPERTIES_FILE} cannot be used (${reason})`, {
      cause: error,
    });
  }
}

/** The log package's identity checks, plus the one RaftNode adds: the file must carry a directory id. */
function describeMismatches(existing: MetaProperties, expected: LogDirectoryOwner): string[] {
  const mismatches = metaPropertiesMismatches(existing, expected);
  if (existing.directoryId === undefined) mismatches.push('it has no directory.id');
  return mismatches;
}

/**
 * Formats `directory` on first start (an atomic, durable `meta.properties` through the log
 * package's writer); afterwards checks that it belongs to this node, cluster and directory id. A
 * mismatch is refused with a `LogDirectoryError` and the file is left untouched: pointing a node
 * at another node's data would silently corrupt the quorum.
 */
export function ensureLogDirectoryFormatted(
  fileSystem: FileSystem,
  directory: string,
  expected: LogDirectoryOwner,
): LogDirectoryFormat {
  fileSystem.mkdir(directory);
  const existing = readExisting(fileSystem, directory);
  if (existing === undefined) {
    const directoryId = expected.directoryId ?? Uuid.randomDirectoryId();
    writeMetaProperties(fileSystem, directory, {
      version: 1,
      clusterId: expected.clusterId,
      nodeId: expected.nodeId,
      directoryId,
    });
    return { formatted: true, directoryId };
  }
  const mismatches = describeMismatches(existing, expected);
  if (mismatches.length > 0) {
    throw new LogDirectoryError(
      directory,
      `${META_PROPERTIES_FILE} belongs to another node or directory (${mismatches.join('; ')}); refusing to use or overwrite it`,
    );
  }
  // describeMismatches refused a file without a directory id.
  return { formatted: false, directoryId: existing.directoryId as Uuid };
}
