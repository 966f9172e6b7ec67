import { joinPath } from '../files/atomic-file.js';
import type { OffsetAndEpoch } from '../raft-log-types.js';

export const SNAPSHOT_SUFFIX = '.checkpoint';
export const PARTIAL_SUFFIX = '.checkpoint.part';
export const DELETED_SUFFIX = '.checkpoint.deleted';
/** Kafka's `BOOTSTRAP_SNAPSHOT_ID`: written by `kafka-storage format`. */
export const BOOTSTRAP_SNAPSHOT_ID: OffsetAndEpoch = { offset: 0, epoch: 0 };

/** A parsed snapshot file name (Kafka `SnapshotPath`). */
export interface SnapshotPath {
  readonly name: string;
  readonly snapshotId: OffsetAndEpoch;
  readonly partial: boolean;
  readonly deleted: boolean;
}

const SNAPSHOT_NAME =
  /^(\d{20})-(\d{10})(?:(\.checkpoint)|(-[^/]*\.checkpoint\.part)|(\.checkpoint\.deleted))$/;

/** `%020d-%010d` from (end offset, epoch). */
export function snapshotBaseName(snapshotId: OffsetAndEpoch): string {
  return `${String(snapshotId.offset).padStart(20, '0')}-${String(snapshotId.epoch).padStart(10, '0')}`;
}

/**
 * The file name of a frozen snapshot, `<offset %020d>-<epoch %010d>.checkpoint`, as Kafka's
 * `Snapshots.filenameFromSnapshotId` writes it; e.g. `00000000000000000100-0000000003.checkpoint`.
 */
export function snapshotFileName(snapshotId: OffsetAndEpoch): string {
  return `${snapshotBaseName(snapshotId)}${SNAPSHOT_SUFFIX}`;
}

/** {@link snapshotFileName} inside `directory` (the partition directory). */
export function snapshotFilePath(directory: string, snapshotId: OffsetAndEpoch): string {
  return joinPath(directory, snapshotFileName(snapshotId));
}

/** `<name>-<unique>.checkpoint.part`: the temporary file a writer fills before freezing. */
export function partialSnapshotFilePath(
  directory: string,
  snapshotId: OffsetAndEpoch,
  unique: string,
): string {
  return joinPath(directory, `${snapshotBaseName(snapshotId)}-${unique}${PARTIAL_SUFFIX}`);
}

export function deletedSnapshotFilePath(directory: string, snapshotId: OffsetAndEpoch): string {
  return joinPath(directory, `${snapshotBaseName(snapshotId)}${DELETED_SUFFIX}`);
}

/** Parses a file name; undefined for anything that is not a snapshot, partial or deleted snapshot. */
export function parseSnapshotFileName(name: string): SnapshotPath | undefined {
  const match = SNAPSHOT_NAME.exec(name);
  if (match === null) return undefined;
  const offset = Number(match[1]);
  const epoch = Number(match[2]);
  if (!Number.isSafeInteger(offset) || epoch > 2 ** 31 - 1) return undefined;
  return {
    name,
    snapshotId: { offset, epoch },
    partial: match[4] !== undefined,
    deleted: match[5] !== undefined,
  };
}
