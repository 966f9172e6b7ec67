import type { OffsetAndEpoch, RaftLog } from '@kraft/raft';
import { type Batch, RecordsIterator } from '@kraft/records';
import { MetadataDelta } from '../../src/image/metadata-delta.js';
import { MetadataImage } from '../../src/image/metadata-image.js';
import { MetadataProvenance } from '../../src/image/metadata-provenance.js';
import { MetadataRecordSerde } from '../../src/serde/metadata-record-serde.js';

/** Every batch of a frozen snapshot, control batches included. */
export function snapshotBatches(log: RaftLog, snapshotId: OffsetAndEpoch): Batch[] {
  const raw = log.readSnapshot(snapshotId);
  if (raw === undefined) throw new Error(`no snapshot ${snapshotId.offset}-${snapshotId.epoch}`);
  // The log owns the raw reader (shared and cached): it is read, never closed, here.
  return [...new RecordsIterator(raw.records())];
}

/** The metadata record values of a snapshot, in order (each batch owns its bytes, so no copy). */
export function snapshotRecordValues(log: RaftLog, snapshotId: OffsetAndEpoch): Buffer[] {
  return snapshotBatches(log, snapshotId)
    .filter((batch) => !batch.isControl)
    .flatMap((batch) => batch.records.map((record) => record.value as Buffer));
}

/** The image a snapshot holds, replayed on the empty image. */
export function snapshotImage(log: RaftLog, snapshotId: OffsetAndEpoch): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const value of snapshotRecordValues(log, snapshotId))
    delta.replay(MetadataRecordSerde.INSTANCE.read(value));
  return delta.apply(new MetadataProvenance(snapshotId.offset - 1, snapshotId.epoch, -1, true));
}

/** An image's records as values, in `records()` order: what its snapshot must hold. */
export function imageRecordValues(image: MetadataImage): Buffer[] {
  return [...image.records()].map((record) => MetadataRecordSerde.INSTANCE.serialize(record));
}
