import { createHash } from 'node:crypto';
import { type MetadataImage, MetadataRecordSerde } from '@kraft/metadata';

/** An image's identity, whatever path built it: a log replay, a snapshot load, or both. */
export interface ImageDigest {
  /** SHA-256 (hex) over the image's serialised records, sorted bytewise, each prefixed by its length. */
  readonly digest: string;
  readonly recordCount: number;
  /** The records' bytes in total. */
  readonly sizeInBytes: number;
}

const LENGTH_PREFIX_BYTES = 4;

/**
 * The records the snapshot writer would emit for `image` (`image.records()` framed by Kafka's
 * serde), sorted: the iteration order of a persistent map may depend on the order its keys were
 * added, so two equal images replayed along different paths can list their records differently.
 * The provenance (offset, epoch) is not part of the digest: a LeaderChange control batch moves the
 * offset without changing the image.
 */
export function imageDigest(image: MetadataImage): ImageDigest {
  const values = [...image.records()].map((record) => MetadataRecordSerde.INSTANCE.write(record));
  values.sort(Buffer.compare);
  const hash = createHash('sha256');
  const prefix = Buffer.alloc(LENGTH_PREFIX_BYTES);
  let sizeInBytes = 0;
  for (const value of values) {
    prefix.writeUInt32BE(value.length, 0);
    hash.update(prefix);
    hash.update(value);
    sizeInBytes += value.length;
  }
  return { digest: hash.digest('hex'), recordCount: values.length, sizeInBytes };
}
