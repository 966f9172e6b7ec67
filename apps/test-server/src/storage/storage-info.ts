/**
 * `kraft-storage.sh info`: Kafka's `StorageTool.infoCommand` on the node's metadata log dir (the
 * one directory the test server uses), with the same lines, plus what the dir's bootstrap
 * checkpoint holds: its kraft.version and voters.
 */
import { join } from 'node:path';
import { META_PROPERTIES_FILE, type MetaProperties, readMetaProperties } from '@kraft/log';
import { KRaftError } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import type { ServerConfig } from '../config/server-config.js';
import {
  type BootstrapCheckpoint,
  bootstrapCheckpointPaths,
  describeVoter,
  readBootstrapCheckpoint,
} from './bootstrap-checkpoint.js';
import { BootstrapCheckpointError } from './bootstrap-checkpoint-error.js';

export interface StorageInfo {
  readonly lines: readonly string[];
  /** Kafka's exit code: 1 when a problem was found, else 0. */
  readonly exitCode: 0 | 1;
}

/** Java's `TreeMap.toString()` of meta.properties' fields (`MetaProperties.toProperties`). */
function metadataText(properties: MetaProperties): string {
  const fields = new Map<string, string>([['version', String(properties.version)]]);
  if (properties.clusterId !== undefined) fields.set('cluster.id', properties.clusterId);
  if (properties.nodeId !== undefined) {
    fields.set(properties.version === 1 ? 'node.id' : 'broker.id', String(properties.nodeId));
  }
  if (properties.directoryId !== undefined) fields.set('directory.id', properties.directoryId.toString());
  const sorted = [...fields].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${sorted.map(([key, value]) => `${key}=${value}`).join(', ')}}`;
}

function isDirectory(fileSystem: FileSystem, path: string): boolean {
  try {
    fileSystem.list(path);
    return true;
  } catch (error) {
    if (KRaftError.isInstance(error)) return false;
    throw error;
  }
}

function checkpointLines(checkpoint: BootstrapCheckpoint): string[] {
  const lines = [
    `Found bootstrap checkpoint: ${checkpoint.path}`,
    `  kraft.version: ${checkpoint.kraftVersion}`,
  ];
  for (const voter of checkpoint.voters ?? []) lines.push(`  ${describeVoter(voter)}`);
  if (checkpoint.kraftVersion > 0) {
    lines.push('  (the test server runs kraft.version 0 only: it refuses to start on this dir)');
  }
  return [...lines, ''];
}

/**
 * The info lines for `config`'s metadata log dir. Problems (Kafka's "Found problem:" list) make
 * the exit code 1: no directory, not a directory, not formatted, a meta.properties or a
 * checkpoint that cannot be read, a legacy (version 0) file under a KRaft config.
 */
export function storageInfo(
  config: ServerConfig,
  fileSystem: FileSystem,
  partitionDirectoryName: string,
): StorageInfo {
  const directory = config.metadataLogDir;
  const problems: string[] = [];
  const lines: string[] = [];
  let metadata: MetaProperties | undefined;
  const checkpoints: BootstrapCheckpoint[] = [];
  if (!fileSystem.exists(directory)) {
    problems.push(`${directory} does not exist`);
  } else if (!isDirectory(fileSystem, directory)) {
    problems.push(`${directory} is not a directory`);
  } else {
    lines.push('Found log directory:', `  ${directory}`, '');
    const metaPath = join(directory, META_PROPERTIES_FILE);
    try {
      metadata = readMetaProperties(fileSystem, directory);
      if (metadata === undefined) problems.push(`${directory} is not formatted.`);
    } catch (error) {
      if (!KRaftError.isInstance(error)) throw error;
      problems.push(`Error loading ${metaPath}: ${error.message}`);
    }
    for (const path of bootstrapCheckpointPaths(directory, partitionDirectoryName)) {
      try {
        const checkpoint = readBootstrapCheckpoint(fileSystem, path);
        if (checkpoint !== undefined) checkpoints.push(checkpoint);
      } catch (error) {
        if (!BootstrapCheckpointError.isBootstrapCheckpointError(error)) throw error;
        problems.push(`Error loading ${path}: ${error.reason}`);
      }
    }
  }
  const kraftMode = config.processRoles.length > 0;
  if (metadata !== undefined && kraftMode && metadata.version === 0) {
    problems.push(
      'The kafka configuration file appears to be for a cluster in KRaft mode, but the directories are formatted for legacy mode.',
    );
  } else if (metadata !== undefined && !kraftMode && metadata.version === 1) {
    problems.push(
      'The kafka configuration file appears to be for a legacy cluster, but the directories are formatted for a cluster in KRaft mode.',
    );
  }
  if (metadata !== undefined) lines.push(`Found metadata: ${metadataText(metadata)}`, '');
  for (const checkpoint of checkpoints) lines.push(...checkpointLines(checkpoint));
  if (metadata !== undefined && checkpoints.length === 0) {
    lines.push('No bootstrap checkpoint (no dynamic quorum was written when the dir was formatted).', '');
  }
  if (problems.length > 0) {
    lines.push(
      problems.length === 1 ? 'Found problem:' : 'Found problems:',
      ...problems.map((problem) => `  ${problem}`),
      '',
    );
  }
  return { lines, exitCode: problems.length > 0 ? 1 : 0 };
}
