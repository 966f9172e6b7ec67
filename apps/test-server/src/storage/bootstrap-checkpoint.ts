/**
 * The bootstrap checkpoint Kafka's `kafka-storage format --standalone | --initial-controllers`
 * writes: snapshot `00000000000000000000-0000000000.checkpoint` (snapshot id 0-0) in the metadata
 * partition's directory, holding only control records. Kafka's `RecordsSnapshotWriter` lays it
 * out as two control batches: offsets 0-2 in one batch (SnapshotHeaderRecord, KRaftVersionRecord,
 * VotersRecord), then the SnapshotFooterRecord alone at offset 3; partition leader epoch 0 (the
 * snapshot's epoch), every record stamped with the format time.
 */
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { BOOTSTRAP_SNAPSHOT_ID, FileRawSnapshotWriter, readSmallFile, snapshotFileName } from '@kraft/log';
import { KRaftError, Uuid, type VotersRecordData, type VotersRecordVoter } from '@kraft/protocol';
import {
  buildControlBatch,
  type ControlBatchOptions,
  ControlRecordType,
  decodeControlRecord,
  type FileSystem,
  MemoryRecords,
} from '@kraft/records';
import { BootstrapCheckpointError } from './bootstrap-checkpoint-error.js';
import type { DynamicVoter } from './dynamic-voters.js';

/** `00000000000000000000-0000000000.checkpoint`. */
export const BOOTSTRAP_CHECKPOINT_FILE = snapshotFileName(BOOTSTRAP_SNAPSHOT_ID);
/** Where Kafka's controllers keep the metadata log; the test server's partition is its own. */
export const KAFKA_METADATA_PARTITION_DIRECTORY = '__cluster_metadata-0';
/** The kraft.version of a dynamic quorum (KIP-853): voters live in the log. */
export const KRAFT_VERSION_DYNAMIC = 1;
/** Every voter the formatter writes supports kraft.version 0 to 1 (Kafka's `DynamicVoter.toVoterNode`). */
export const FORMATTED_VOTER_KRAFT_VERSIONS = { minSupportedVersion: 0, maxSupportedVersion: 1 } as const;
/** Control values are written at version 0, as Kafka's `ControlRecordUtils` does. */
const CONTROL_RECORD_VERSION = 0;
/** Header, KRaftVersion and Voters records: the footer's offset. */
const FOOTER_OFFSET = 3;

/** What goes into a bootstrap checkpoint. */
export interface BootstrapCheckpointContents {
  /** The initial voters, in the order they are written (sorted by node id). */
  readonly voters: readonly DynamicVoter[];
  /** The endpoint name of every voter: the first of `controller.listener.names`. */
  readonly listenerName: string;
  /** Every record's timestamp and the header's `lastContainedLogTimestamp` (Kafka: the format time). */
  readonly timestampMs: number;
}

/** The eight 16-bit words of a valid IPv6 literal (a trailing dotted IPv4 part included). */
function ipv6Words(address: string): number[] {
  const hexOnly = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_match, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const split = (text: string): string[] => (text === '' ? [] : text.split(':'));
  const gap = hexOnly.indexOf('::');
  const words =
    gap < 0
      ? split(hexOnly)
      : (() => {
          const head = split(hexOnly.slice(0, gap));
          const tail = split(hexOnly.slice(gap + 2));
          return [...head, ...Array.from({ length: 8 - head.length - tail.length }, () => '0'), ...tail];
        })();
  return words.map((word) => Number.parseInt(word, 16));
}

/**
 * A host as Java's `InetSocketAddress.getHostString()` gives it back, which is what Kafka writes
 * into a VotersRecord: an IPv6 literal in Java's full form (`::1` becomes `0:0:0:0:0:0:0:1`), an
 * IPv4-mapped one as its IPv4 address; a host name, an IPv4 address or a scoped IPv6 address
 * (`%zone`, which Java resolves against the local interfaces) unchanged.
 */
export function javaHostString(host: string): string {
  if (!isIPv6(host) || host.includes('%')) return host;
  const words = ipv6Words(host);
  const isIpv4Mapped = words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff;
  if (isIpv4Mapped) {
    const [high, low] = words.slice(6) as [number, number];
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return words.map((word) => word.toString(16)).join(':');
}

/** The VotersRecord of `voters`, each with one endpoint under `listenerName` (Kafka's `VoterSet.toVotersRecord`). */
export function votersRecordOf(voters: readonly DynamicVoter[], listenerName: string): VotersRecordData {
  return {
    version: CONTROL_RECORD_VERSION,
    voters: voters.map(
      (voter): VotersRecordVoter => ({
        voterId: voter.nodeId,
        voterDirectoryId: voter.directoryId,
        endpoints: [{ name: listenerName, host: javaHostString(voter.host), port: voter.port }],
        kRaftVersionFeature: { ...FORMATTED_VOTER_KRAFT_VERSIONS },
      }),
    ),
  };
}

/** The checkpoint's two control batches, as one buffer (the whole file). */
export function bootstrapCheckpointBytes(contents: BootstrapCheckpointContents): Buffer {
  const batch = (baseOffset: number): ControlBatchOptions => ({
    baseOffset,
    partitionLeaderEpoch: BOOTSTRAP_SNAPSHOT_ID.epoch,
    timestamp: contents.timestampMs,
  });
  const header = buildControlBatch(batch(0), [
    {
      type: ControlRecordType.SNAPSHOT_HEADER,
      message: { version: CONTROL_RECORD_VERSION, lastContainedLogTimestamp: BigInt(contents.timestampMs) },
    },
    {
      type: ControlRecordType.KRAFT_VERSION,
      message: { version: CONTROL_RECORD_VERSION, kRaftVersion: KRAFT_VERSION_DYNAMIC },
    },
    { type: ControlRecordType.KRAFT_VOTERS, message: votersRecordOf(contents.voters, contents.listenerName) },
  ]);
  const footer = buildControlBatch(batch(FOOTER_OFFSET), [
    { type: ControlRecordType.SNAPSHOT_FOOTER, message: { version: CONTROL_RECORD_VERSION } },
  ]);
  return Buffer.concat([header.buffer(), footer.buffer()]);
}

/**
 * Writes the checkpoint into `partitionDirectory` (created if missing) the way the log package
 * writes every snapshot: a `.checkpoint.part` file, fdatasync, rename to its final name, fsync of
 * the directory. A crash leaves either no checkpoint or a whole one. Returns its path.
 */
export function writeBootstrapCheckpoint(
  fileSystem: FileSystem,
  partitionDirectory: string,
  contents: BootstrapCheckpointContents,
): string {
  fileSystem.mkdir(partitionDirectory);
  const writer = FileRawSnapshotWriter.create(
    fileSystem,
    partitionDirectory,
    BOOTSTRAP_SNAPSHOT_ID,
    Uuid.randomUuid().toString(),
  );
  try {
    writer.appendUnaligned(bootstrapCheckpointBytes(contents));
    writer.freeze();
  } finally {
    writer.close();
  }
  return join(partitionDirectory, BOOTSTRAP_CHECKPOINT_FILE);
}

/** What a bootstrap checkpoint says: the kraft.version and voters it starts the log with. */
export interface BootstrapCheckpoint {
  readonly path: string;
  /** The last KRaftVersionRecord's level; 0 when the checkpoint has none. */
  readonly kraftVersion: number;
  /** The last VotersRecord's voters; undefined when the checkpoint has none. */
  readonly voters: readonly VotersRecordVoter[] | undefined;
  readonly lastContainedLogTimestampMs: number;
}

/** The checkpoints a start must look at: the test server's partition, and Kafka's metadata partition. */
export function bootstrapCheckpointPaths(metadataLogDir: string, partitionDirectoryName: string): string[] {
  return [...new Set([partitionDirectoryName, KAFKA_METADATA_PARTITION_DIRECTORY])].map((name) =>
    join(metadataLogDir, name, BOOTSTRAP_CHECKPOINT_FILE),
  );
}

/**
 * Reads and checks the checkpoint at `path`, or returns undefined when there is none. Checked as
 * Kafka's snapshot reader checks a snapshot: every batch whole and its CRC right, no bytes after
 * the last one, offsets from 0 without a gap, a SnapshotHeaderRecord first and a
 * SnapshotFooterRecord last. The file is read whole, bounded by the log package's small-file
 * limit (a bootstrap checkpoint is a few hundred bytes).
 *
 * @throws BootstrapCheckpointError when the file cannot be read or is not such a snapshot.
 */
export function readBootstrapCheckpoint(
  fileSystem: FileSystem,
  path: string,
): BootstrapCheckpoint | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readSmallFile(fileSystem, path);
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    throw new BootstrapCheckpointError(path, `cannot be read (${error.message})`, { cause: error });
  }
  if (bytes === undefined) return undefined;
  try {
    return decodeCheckpoint(path, bytes);
  } catch (error) {
    if (BootstrapCheckpointError.isBootstrapCheckpointError(error) || !KRaftError.isInstance(error))
      throw error;
    throw new BootstrapCheckpointError(path, error.message, { cause: error });
  }
}

function decodeCheckpoint(path: string, bytes: Buffer): BootstrapCheckpoint {
  const records = MemoryRecords.readableRecords(bytes);
  records.validate();
  const fail = (reason: string): never => {
    throw new BootstrapCheckpointError(path, reason);
  };
  let nextOffset = 0;
  let kraftVersion = 0;
  let voters: readonly VotersRecordVoter[] | undefined;
  let lastContainedLogTimestampMs: number | undefined;
  let footerSeen = false;
  for (const batch of records.batches()) {
    if (footerSeen) fail(`a batch at offset ${batch.baseOffset} follows the SnapshotFooterRecord`);
    if (batch.baseOffset !== nextOffset) {
      fail(`batch at byte ${batch.position} starts at offset ${batch.baseOffset}, expected ${nextOffset}`);
    }
    nextOffset = batch.lastOffset + 1;
    // Data batches (metadata records) may sit between header and footer; a bootstrap needs only the control records.
    if (!batch.isControl) continue;
    for (const record of batch.records()) {
      const control = decodeControlRecord(record, batch.position);
      if (lastContainedLogTimestampMs === undefined && control.type !== ControlRecordType.SNAPSHOT_HEADER) {
        fail(`the first record (offset ${record.offset}) is not a SnapshotHeaderRecord`);
      }
      switch (control.type) {
        case ControlRecordType.SNAPSHOT_HEADER:
          if (lastContainedLogTimestampMs !== undefined)
            fail(`a second SnapshotHeaderRecord at offset ${record.offset}`);
          lastContainedLogTimestampMs = Number(control.message.lastContainedLogTimestamp);
          break;
        case ControlRecordType.KRAFT_VERSION:
          kraftVersion = control.message.kRaftVersion;
          break;
        case ControlRecordType.KRAFT_VOTERS:
          voters = control.message.voters;
          break;
        case ControlRecordType.SNAPSHOT_FOOTER:
          footerSeen = true;
          break;
        case ControlRecordType.LEADER_CHANGE:
          fail(`a LeaderChangeMessage control record at offset ${record.offset} (a snapshot holds none)`);
      }
    }
  }
  if (lastContainedLogTimestampMs === undefined) return fail('it holds no record');
  if (!footerSeen) fail('it ends without a SnapshotFooterRecord (a snapshot not written to the end)');
  return { path, kraftVersion, voters, lastContainedLogTimestampMs };
}

/** `1@localhost:9093` style text of a VotersRecord voter, with its directory id, endpoints and range. */
export function describeVoter(voter: VotersRecordVoter): string {
  const endpoints = voter.endpoints
    .map((endpoint) => {
      const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
      return `${endpoint.name}://${host}:${endpoint.port}`;
    })
    .join(', ');
  const range = voter.kRaftVersionFeature;
  return (
    `voter ${voter.voterId}: directory.id=${voter.voterDirectoryId.toString()}, endpoints=[${endpoints}], ` +
    `kraft.version=[${range.minSupportedVersion}, ${range.maxSupportedVersion}]`
  );
}
