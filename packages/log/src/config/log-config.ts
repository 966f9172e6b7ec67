import { checkBoolean, checkInteger, checkOptionsObject } from '@kraft/protocol';
import { InvalidConfigurationError } from '../errors/log-errors.js';

const MEBIBYTE = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Kafka's configuration keys for the metadata log (MetadataLogConfig, LogConfig). */
export const LogConfigKeys = {
  segmentBytes: 'metadata.log.segment.bytes',
  internalSegmentBytes: 'internal.metadata.log.segment.bytes',
  segmentMs: 'metadata.log.segment.ms',
  retentionMaxBytes: 'metadata.max.retention.bytes',
  retentionMs: 'metadata.max.retention.ms',
  maxBatchSizeInBytes: 'internal.metadata.max.batch.size.in.bytes',
  indexIntervalBytes: 'index.interval.bytes',
  segmentIndexBytes: 'segment.index.bytes',
  preallocate: 'log.preallocate',
} as const;

/** Kafka's floor for `metadata.log.segment.bytes`: one maximum-size batch must fit in a segment. */
export const MIN_SEGMENT_BYTES = 8 * MEBIBYTE;
/** Kafka's entry counts are int32 and positions are int32: a segment can never exceed 2 GiB. */
const MAX_SEGMENT_BYTES = 2 ** 31 - 1;

/**
 * Kafka-style properties for {@link LogConfig.fromProperties}, keyed by {@link LogConfigKeys}
 * values (`metadata.log.segment.bytes`, ...): strings as read from a `.properties` file, or
 * numbers and booleans already parsed.
 */
export type LogConfigProperties = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * The metadata log's settings in camelCase, each optional with Kafka's default. The
 * {@link LogConfig} constructor range-checks them and throws {@link InvalidConfigurationError}
 * for a value out of range or of the wrong type.
 */
export interface LogConfigOptions {
  /** `metadata.log.segment.bytes`, at least 8 MiB. */
  segmentBytes?: number;
  /** `internal.metadata.log.segment.bytes`: a test-only override without the 8 MiB floor. */
  internalSegmentBytes?: number;
  /** `metadata.log.segment.ms`: roll a segment whose batches span more than this; default 7 days. */
  segmentMs?: number;
  /** `metadata.max.retention.bytes`: soft limit on log plus snapshots; default 100 MiB, -1 off. */
  retentionMaxBytes?: number;
  /** `metadata.max.retention.ms`: soft limit on snapshot age; default 7 days, -1 off. */
  retentionMs?: number;
  /** `internal.metadata.max.batch.size.in.bytes`: largest batch accepted; default 8 MiB. */
  maxBatchSizeInBytes?: number;
  /** `index.interval.bytes`: bytes of log between two sparse index entries; default 4096. */
  indexIntervalBytes?: number;
  /** `segment.index.bytes`: preallocated size of each index file; default 10 MiB, at least 12. */
  segmentIndexBytes?: number;
  /** `log.preallocate`: size each new segment to `segmentBytes` up front; default false. */
  preallocate?: boolean;
}

/**
 * The metadata log's settings, with Kafka's names and defaults (kraft-behaviour.md §3.2). Built from
 * Kafka property keys (`fromProperties`) or from camelCase options; every value is range-checked.
 */
export class LogConfig {
  /** The effective roll size: the internal override when set, else `metadata.log.segment.bytes`. */
  readonly segmentBytes: number;
  readonly segmentMs: number;
  /** Soft limit on log plus snapshots; -1 disables size retention. */
  readonly retentionMaxBytes: number;
  /** Soft limit on snapshot age (by its last contained timestamp); -1 disables time retention. */
  readonly retentionMs: number;
  readonly maxBatchSizeInBytes: number;
  /** Bytes between two sparse index entries. */
  readonly indexIntervalBytes: number;
  /** Preallocated size of each active segment's index files (trimmed on roll and close). */
  readonly segmentIndexBytes: number;
  /** Preallocate each new segment to `segmentBytes`: cuts fsync p99 by about 10x (TARGETS.md). */
  readonly preallocate: boolean;

  constructor(options: LogConfigOptions = {}) {
    checkOptionsObject('LogConfig options', options);
    const configured = checkRange(
      LogConfigKeys.segmentBytes,
      options.segmentBytes ?? 1024 * MEBIBYTE,
      1,
      MAX_SEGMENT_BYTES,
    );
    if (configured < MIN_SEGMENT_BYTES) {
      throw new InvalidConfigurationError(
        `${LogConfigKeys.segmentBytes} must be at least ${MIN_SEGMENT_BYTES}, got ${configured}`,
      );
    }
    this.segmentBytes = checkRange(
      LogConfigKeys.internalSegmentBytes,
      options.internalSegmentBytes ?? configured,
      1,
      MAX_SEGMENT_BYTES,
    );
    this.segmentMs = checkRange(
      LogConfigKeys.segmentMs,
      options.segmentMs ?? 7 * DAY_MS,
      1,
      Number.MAX_SAFE_INTEGER,
    );
    this.retentionMaxBytes = checkRange(
      LogConfigKeys.retentionMaxBytes,
      options.retentionMaxBytes ?? 100 * MEBIBYTE,
      -1,
      Number.MAX_SAFE_INTEGER,
    );
    this.retentionMs = checkRange(
      LogConfigKeys.retentionMs,
      options.retentionMs ?? 7 * DAY_MS,
      -1,
      Number.MAX_SAFE_INTEGER,
    );
    this.maxBatchSizeInBytes = checkRange(
      LogConfigKeys.maxBatchSizeInBytes,
      options.maxBatchSizeInBytes ?? 8 * MEBIBYTE,
      1,
      MAX_SEGMENT_BYTES,
    );
    this.indexIntervalBytes = checkRange(
      LogConfigKeys.indexIntervalBytes,
      options.indexIntervalBytes ?? 4096,
      0,
      MAX_SEGMENT_BYTES,
    );
    this.segmentIndexBytes = checkRange(
      LogConfigKeys.segmentIndexBytes,
      options.segmentIndexBytes ?? 10 * MEBIBYTE,
      12,
      MAX_SEGMENT_BYTES,
    );
    this.preallocate = checkBoolean(LogConfigKeys.preallocate, options.preallocate ?? false);
  }

  /** Reads Kafka's property keys (`metadata.log.segment.bytes`, ...); unknown keys are ignored. */
  static fromProperties(properties: LogConfigProperties): LogConfig {
    const options: LogConfigOptions = {};
    const integer = (key: string): number | undefined => parseInteger(key, properties[key]);
    assign(options, 'segmentBytes', integer(LogConfigKeys.segmentBytes));
    assign(options, 'internalSegmentBytes', integer(LogConfigKeys.internalSegmentBytes));
    assign(options, 'segmentMs', integer(LogConfigKeys.segmentMs));
    assign(options, 'retentionMaxBytes', integer(LogConfigKeys.retentionMaxBytes));
    assign(options, 'retentionMs', integer(LogConfigKeys.retentionMs));
    assign(options, 'maxBatchSizeInBytes', integer(LogConfigKeys.maxBatchSizeInBytes));
    assign(options, 'indexIntervalBytes', integer(LogConfigKeys.indexIntervalBytes));
    assign(options, 'segmentIndexBytes', integer(LogConfigKeys.segmentIndexBytes));
    assign(
      options,
      'preallocate',
      parseBoolean(LogConfigKeys.preallocate, properties[LogConfigKeys.preallocate]),
    );
    return new LogConfig(options);
  }
}

function assign<K extends keyof LogConfigOptions>(
  options: LogConfigOptions,
  key: K,
  value: LogConfigOptions[K] | undefined,
): void {
  if (value !== undefined) options[key] = value;
}

function checkRange(key: string, value: unknown, minimum: number, maximum: number): number {
  return checkInteger(key, value, { minimum, maximum });
}

function parseInteger(key: string, value: string | number | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  throw new InvalidConfigurationError(`${key} must be an integer, got '${String(value)}'`);
}

function parseBoolean(key: string, value: string | number | boolean | undefined): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new InvalidConfigurationError(`${key} must be true or false, got '${String(value)}'`);
}
