import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { LogConfig, MIN_SEGMENT_BYTES } from './log-config.js';

describe('LogConfig', () => {
  it("has Kafka's defaults", () => {
    const config = new LogConfig();
    expect(config).toMatchObject({
      segmentBytes: 1024 * 1024 * 1024,
      segmentMs: 7 * 24 * 60 * 60 * 1000,
      retentionMaxBytes: 100 * 1024 * 1024,
      retentionMs: 7 * 24 * 60 * 60 * 1000,
      maxBatchSizeInBytes: 8 * 1024 * 1024,
      indexIntervalBytes: 4096,
      segmentIndexBytes: 10 * 1024 * 1024,
      preallocate: false,
    });
  });

  it('enforces the 8 MiB floor unless the internal test override is used', () => {
    expect(() => new LogConfig({ segmentBytes: MIN_SEGMENT_BYTES - 1 })).toThrow(InvalidConfigurationError);
    expect(new LogConfig({ segmentBytes: MIN_SEGMENT_BYTES }).segmentBytes).toBe(MIN_SEGMENT_BYTES);
    expect(new LogConfig({ internalSegmentBytes: 1024 }).segmentBytes).toBe(1024);
  });

  it("reads Kafka's property keys and rejects bad values", () => {
    const config = LogConfig.fromProperties({
      'metadata.log.segment.bytes': '16777216',
      'metadata.log.segment.ms': 1000,
      'metadata.max.retention.bytes': '-1',
      'metadata.max.retention.ms': '60000',
      'log.preallocate': 'true',
      'some.other.key': 'ignored',
    });
    expect(config).toMatchObject({
      segmentBytes: 16_777_216,
      segmentMs: 1000,
      retentionMaxBytes: -1,
      retentionMs: 60_000,
      preallocate: true,
    });
    expect(LogConfig.fromProperties({ 'internal.metadata.log.segment.bytes': '4096' }).segmentBytes).toBe(
      4096,
    );
    expect(() => LogConfig.fromProperties({ 'metadata.log.segment.ms': 'soon' })).toThrow(
      InvalidConfigurationError,
    );
    expect(() => LogConfig.fromProperties({ 'log.preallocate': 'yes' })).toThrow(InvalidConfigurationError);
    expect(() => LogConfig.fromProperties({ 'metadata.max.retention.bytes': '-2' })).toThrow(
      InvalidConfigurationError,
    );
    expect(() => new LogConfig({ indexIntervalBytes: 1.5 })).toThrow(InvalidConfigurationError);
  });
});
