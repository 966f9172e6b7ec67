import { join } from 'node:path';
import {
  META_PROPERTIES_FILE,
  type MetaProperties,
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

/** Where a log directory's `meta.properties` lives. */
export function metaPropertiesPath(directory: string): string {
  return join(directory, META_PROPERTIES_FILE);
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

function describeMismatches(existing: MetaProperties, expected: LogDirectoryOwner): string[] {
  const mismatches: string[] = [];
  if (existing.version !== 1) mismatches.push(`version is ${existing.version}, KRaft requires 1`);
  if (existing.clusterId !== expected.clusterId) {
    mismatches.push(`cluster.id is ${existing.clusterId}, expected ${expected.clusterId}`);
  }
  if (existing.nodeId !== expected.nodeId) {
    mismatches.push(`node.id is ${existing.nodeId} but the config has node.id=${expected.nodeId}`);
  }
  if (existing.directoryId === undefined) {
    mismatches.push('it has no directory.id');
  } else if (expected.directoryId !== undefined && !existing.directoryId.equals(expected.directoryId)) {
    mismatches.push(
      `directory.id is ${existing.directoryId.toString()} but the node was given directory id ${expected.directoryId.toString()}`,
    );
  }
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
