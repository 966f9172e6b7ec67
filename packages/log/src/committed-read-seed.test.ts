import { MemoryRecordsBuilder, RecordsIterator } from '@kraft/records';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FileSystemFixture,
  memoryFixture,
  nodeFixture,
  testConfig,
} from '../test/support/log-fixtures.js';

const MEBIBYTE = 1024 * 1024;

/** One batch holding a single record of about 1 MiB. */
function bigBatch(index: number) {
  const builder = new MemoryRecordsBuilder();
  builder.append({ timestamp: 1_700_000_000_000, value: Buffer.alloc(MEBIBYTE - 200, index) });
  return builder.build();
}

// The seed bug (KAFKA-20841) at the log layer: a committed read larger than RecordsIterator's 8 MiB
// buffer, with uncommitted batches after the high watermark in the same segment, must never yield
// an offset at or above the high watermark.
describe.each([
  ['MemoryFileSystem', memoryFixture],
  ['NodeFileSystem', nodeFixture],
])('committed read larger than 8 MiB on %s', (_name, makeFixture) => {
  let fixture: FileSystemFixture;
  afterEach(() => fixture.cleanup());

  it('returns only offsets below the high watermark', () => {
    fixture = makeFixture();
    const log = fixture.open({ config: testConfig({ internalSegmentBytes: 64 * MEBIBYTE }) });
    for (let index = 0; index < 13; index += 1) log.appendAsLeader(bigBatch(index), 1);
    log.updateHighWatermark(10);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    const { records } = log.read(0, 'committed');
    expect(records.sizeInBytes()).toBeGreaterThan(8 * MEBIBYTE);
    expect(records.sizeInBytes()).toBe(log.highWatermarkMetadata().relativePositionBytes);
    const offsets: number[] = [];
    for (const batch of new RecordsIterator(records)) offsets.push(batch.lastOffset);
    expect(offsets).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const uncommitted: number[] = [];
    for (const batch of new RecordsIterator(log.read(0, 'uncommitted').records))
      uncommitted.push(batch.lastOffset);
    expect(uncommitted).toHaveLength(13);
    log.close();
  });
});
