import { describe, expect, it } from 'vitest';
import { INCOMPLETE_HEADER, nextBatchSize } from './batch-framing.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD } from './record-batch-layout.js';

/** A batch header: base offset, length and magic set, the rest zeros. */
function header(options: { baseOffset?: bigint; length: number; magic?: number }): Buffer {
  const bytes = Buffer.alloc(RECORD_BATCH_OVERHEAD);
  bytes.writeBigInt64BE(options.baseOffset ?? 7n, 0);
  bytes.writeInt32BE(options.length, 8);
  bytes.writeInt8(options.magic ?? 2, 16);
  return bytes;
}

function thrown(action: () => unknown): CorruptRecordError {
  try {
    action();
  } catch (error) {
    if (error instanceof CorruptRecordError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('nextBatchSize', () => {
  it('reads a batch of the minimum length (the 61-byte header, no records) as that size', () => {
    const minimum = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD;
    expect(nextBatchSize(header({ length: minimum }), 0, RECORD_BATCH_OVERHEAD, 0)).toBe(
      RECORD_BATCH_OVERHEAD,
    );
    const error = thrown(() => nextBatchSize(header({ length: minimum - 1 }), 0, RECORD_BATCH_OVERHEAD, 100));
    expect(error.message).toContain(`batch length ${minimum - 1} is below the ${minimum}-byte minimum`);
    expect(error.position).toBe(100);
    expect(error.offset).toBe(7);
  });

  it('says the offset is unknown (-1) when the base offset is beyond a safe integer', () => {
    const error = thrown(() =>
      nextBatchSize(header({ baseOffset: 0x7fff_ffff_ffff_ffffn, length: 5 }), 0, RECORD_BATCH_OVERHEAD, 0),
    );
    expect(error.offset).toBe(-1);
  });

  it('refuses a magic other than 2, and reports a header cut short as incomplete', () => {
    expect(
      thrown(() => nextBatchSize(header({ length: 100, magic: 1 }), 0, RECORD_BATCH_OVERHEAD, 0)).message,
    ).toContain('unsupported magic 1');
    expect(nextBatchSize(header({ length: 100 }), 0, 16, 0)).toBe(INCOMPLETE_HEADER);
  });
});
