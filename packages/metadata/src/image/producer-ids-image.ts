import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord } from './image-records.js';

/** The next producer id the controller will hand out (Kafka's `ProducerIdsImage`); -1 when none. */
export class ProducerIdsImage {
  static readonly EMPTY = new ProducerIdsImage(-1n);

  readonly nextProducerId: bigint;

  constructor(nextProducerId: bigint) {
    this.nextProducerId = nextProducerId;
  }

  /**
   * Whether no producer id block was ever handed out (next producer id still at its initial value).
   */
  isEmpty(): boolean {
    return this.nextProducerId < 0n;
  }

  /** Kafka writes the block owner as broker -1, epoch -1: only the next id matters to a reader. */
  *records(): Generator<ApiMessageAndVersion> {
    if (this.isEmpty()) return;
    yield latestRecord(MetadataRecordType.PRODUCER_IDS_RECORD, {
      brokerId: -1,
      brokerEpoch: -1n,
      nextProducerId: this.nextProducerId,
    });
  }
}
