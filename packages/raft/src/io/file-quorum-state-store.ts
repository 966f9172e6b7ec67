/**
 * Kafka's `quorum-state` file: one line of compact JSON, no trailing newline, the fields of
 * `QuorumStateData` at the data version in schema order with `"data_version"` last
 * (kraft-formats.md §6):
 *
 *   v0: {"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}
 *   v1: {"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"b8tRS7h4TJ2Vt43Dp85v2A","data_version":1}
 *
 * A write is atomic and durable when its promise resolves: `quorum-state.tmp` is truncated,
 * written and fdatasynced, renamed over `quorum-state`, and the directory is fsynced, both syncs
 * on libuv's thread pool so an election never stalls the event loop. A crash at any step leaves
 * the old or the new state, never a torn file. A file that exists but does not parse is a
 * `CorruptQuorumStateError`, never a silent reset: forgetting a vote could elect two leaders.
 */
import { temporaryPath, writeFileAtomicallyAsync } from '@kraft/log';
import {
  checkMethods,
  checkNonEmptyString,
  checkOptionsObject,
  InvalidConfigurationError,
  invariant,
  Uuid,
} from '@kraft/protocol';
import { FILE_SYSTEM_METHODS, type FileSystem } from '@kraft/records';
import type {
  QuorumStateData,
  QuorumStateDataVersion,
  QuorumStateStore,
} from '../ports/quorum-state-store.js';
import { CorruptQuorumStateError } from './corrupt-quorum-state-error.js';

/** A real file is well under 1 KiB (v0 lists voter ids); anything far larger is not ours. */
const MAX_FILE_SIZE_BYTES = 1024 * 1024;
const INT32_MIN = -0x8000_0000;
const INT32_MAX = 0x7fff_ffff;

/** Where a `FileQuorumStateStore` keeps its file, and the file system it uses. */
export interface FileQuorumStateStoreOptions {
  readonly fileSystem: FileSystem;
  /** The file itself, e.g. `<log dir>/__cluster_metadata-0/quorum-state`. */
  readonly path: string;
}

/**
 * The `quorum-state` JSON file (Kafka's `FileQuorumStateStore`): the durable election state, written
 * atomically through a temporary file and rename. A file too large or unparsable is reported as
 * `CorruptQuorumStateError`, never silently reset.
 */
export class FileQuorumStateStore implements QuorumStateStore {
  private readonly fileSystem: FileSystem;
  private readonly filePath: string;
  private readonly tempPath: string;
  private readonly directory: string;

  constructor(options: FileQuorumStateStoreOptions) {
    checkOptionsObject('FileQuorumStateStore', options);
    checkMethods('FileQuorumStateStore: fileSystem', options.fileSystem, FILE_SYSTEM_METHODS);
    checkNonEmptyString('FileQuorumStateStore: path', options.path);
    if (options.path.endsWith('/')) {
      throw new InvalidConfigurationError(
        `FileQuorumStateStore: path must name a file, got the directory '${options.path}'`,
      );
    }
    this.fileSystem = options.fileSystem;
    this.filePath = options.path;
    // `writeFileAtomicallyAsync`'s temporary file, removed by `clear` too.
    this.tempPath = temporaryPath(options.path);
    const slash = options.path.lastIndexOf('/');
    this.directory = slash <= 0 ? '/' : options.path.slice(0, slash);
  }

  path(): string {
    return this.filePath;
  }

  readElectionState(): QuorumStateData | undefined {
    if (!this.fileSystem.exists(this.filePath)) return undefined;
    return parseQuorumState(this.readText(), this.filePath);
  }

  /** One write at a time (the driver's outbox hands out the next only once this one resolved). */
  writeElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): Promise<void> {
    // `<path>.tmp`, fdatasync, rename, directory fsync: Kafka's atomic file write, as the log's
    // checkpoints, with both syncs off the event loop.
    return writeFileAtomicallyAsync(
      this.fileSystem,
      this.filePath,
      Buffer.from(serializeQuorumState(data, dataVersion), 'utf8'),
    );
  }

  clear(): void {
    this.fileSystem.unlink(this.filePath);
    this.fileSystem.unlink(this.tempPath);
    this.fileSystem.syncDirectory(this.directory);
  }

  private readText(): string {
    const handle = this.fileSystem.open(this.filePath, { readOnly: true });
    try {
      const size = handle.size();
      if (size > MAX_FILE_SIZE_BYTES) {
        throw new CorruptQuorumStateError(
          this.filePath,
          `${size} bytes exceeds the ${MAX_FILE_SIZE_BYTES} byte limit`,
        );
      }
      const bytes = Buffer.alloc(size);
      const count = handle.read(bytes, 0, size, 0);
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, count));
      } catch (error) {
        throw new CorruptQuorumStateError(this.filePath, 'not valid UTF-8', { cause: error });
      }
    } finally {
      handle.close();
    }
  }
}

/**
 * The file text for `data` at `dataVersion`. Fields the version lacks are left out, as Kafka's
 * `ElectionState.toQuorumStateData` does: v0 has no directory id, v1 no voter list.
 */
export function serializeQuorumState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): string {
  checkInt32(data.leaderId, 'leaderId');
  checkInt32(data.leaderEpoch, 'leaderEpoch');
  checkInt32(data.votedId, 'votedId');
  const common = `"leaderId":${data.leaderId},"leaderEpoch":${data.leaderEpoch},"votedId":${data.votedId}`;
  if (dataVersion === 1) {
    return `{${common},"votedDirectoryId":${JSON.stringify(data.votedDirectoryId.toString())},"data_version":1}`;
  }
  let voters = 'null';
  if (data.currentVoters !== null) {
    for (const voterId of data.currentVoters) checkInt32(voterId, 'currentVoters.voterId');
    voters = `[${data.currentVoters.map((voterId) => `{"voterId":${voterId}}`).join(',')}]`;
  }
  return `{"clusterId":"",${common},"appliedOffset":0,"currentVoters":${voters},"data_version":0}`;
}

/** Parses the file text; every field of the stored version is mandatory (Kafka's JsonConverter). */
export function parseQuorumState(text: string, path: string): QuorumStateData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CorruptQuorumStateError(path, 'not JSON', { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CorruptQuorumStateError(path, 'not a JSON object');
  }
  const fields = parsed as Record<string, unknown>;
  const { data_version: dataVersion } = fields;
  if (dataVersion === undefined) throw new CorruptQuorumStateError(path, 'missing data_version');
  if (dataVersion !== 0 && dataVersion !== 1) {
    throw new CorruptQuorumStateError(path, `unsupported data_version ${JSON.stringify(dataVersion)}`);
  }
  const reader = new FieldReader(fields, path, dataVersion);
  if (dataVersion === 1) {
    return {
      leaderId: reader.int32('leaderId'),
      leaderEpoch: reader.int32('leaderEpoch'),
      votedId: reader.int32('votedId'),
      votedDirectoryId: reader.uuid('votedDirectoryId'),
      currentVoters: null,
    };
  }
  reader.string('clusterId');
  const data: QuorumStateData = {
    leaderId: reader.int32('leaderId'),
    leaderEpoch: reader.int32('leaderEpoch'),
    votedId: reader.int32('votedId'),
    votedDirectoryId: Uuid.ZERO,
    currentVoters: null,
  };
  reader.integer('appliedOffset');
  return { ...data, currentVoters: reader.voters('currentVoters') };
}

class FieldReader {
  constructor(
    private readonly fields: Record<string, unknown>,
    private readonly path: string,
    private readonly dataVersion: number,
  ) {}

  private mandatory(name: string): unknown {
    const value = this.fields[name];
    if (value === undefined) {
      throw new CorruptQuorumStateError(
        this.path,
        `missing field '${name}', which is mandatory in data version ${this.dataVersion}`,
      );
    }
    return value;
  }

  private invalid(name: string, expected: string, value: unknown): CorruptQuorumStateError {
    return new CorruptQuorumStateError(
      this.path,
      `field '${name}' must be ${expected}, got ${JSON.stringify(value)}`,
    );
  }

  integer(name: string): number {
    const value = this.mandatory(name);
    if (typeof value !== 'number' || !Number.isInteger(value)) throw this.invalid(name, 'an integer', value);
    return value;
  }

  int32(name: string): number {
    const value = this.integer(name);
    if (value < INT32_MIN || value > INT32_MAX) throw this.invalid(name, 'an int32', value);
    return value;
  }

  string(name: string): string {
    const value = this.mandatory(name);
    if (typeof value !== 'string') throw this.invalid(name, 'a string', value);
    return value;
  }

  uuid(name: string): Uuid {
    const text = this.string(name);
    try {
      return Uuid.fromString(text);
    } catch (error) {
      throw new CorruptQuorumStateError(this.path, `field '${name}' is not a uuid: '${text}'`, {
        cause: error,
      });
    }
  }

  voters(name: string): number[] | null {
    const value = this.mandatory(name);
    if (value === null) return null;
    if (!Array.isArray(value)) throw this.invalid(name, 'an array or null', value);
    return value.map((entry: unknown, index) => {
      const voterId =
        typeof entry === 'object' && entry !== null ? (entry as { voterId?: unknown }).voterId : undefined;
      if (
        typeof voterId !== 'number' ||
        !Number.isInteger(voterId) ||
        voterId < INT32_MIN ||
        voterId > INT32_MAX
      ) {
        throw this.invalid(`${name}[${index}].voterId`, 'an int32', voterId);
      }
      return voterId;
    });
  }
}

/** A value the core handed in that no file could hold is a programmer error. */
function checkInt32(value: number, name: string): void {
  invariant(
    Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX,
    () => `quorum state field ${name} must be an int32, got ${value}`,
  );
}
