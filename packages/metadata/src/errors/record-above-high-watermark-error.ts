import { KRaftError } from '@kraft/protocol';

/**
 * The loader was handed a record at or above the high watermark its reader was created with
 * (or a snapshot ending above it): the slice rule of KAFKA-20841 broke somewhere below. The
 * record is never applied and the loader stops.
 */
export class RecordAboveHighWatermarkError extends KRaftError {
  readonly offset: number;
  readonly highWatermark: number | undefined;

  constructor(message: string, offset: number, highWatermark: number | undefined) {
    super('RECORD_ABOVE_HIGH_WATERMARK', message);
    this.offset = offset;
    this.highWatermark = highWatermark;
  }
}
