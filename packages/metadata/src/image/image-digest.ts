import { createHash } from 'node:crypto';
import { MetadataRecordSerde } from '../serde/metadata-record-serde.js';
import type { ImageWriterOptions } from './image-writer-options.js';
import type { MetadataImage } from './metadata-image.js';

/** An image's identity, whatever path built it: a log replay, a snapshot load, or both. */
export interface ImageDigest {
  /**
   * SHA-256, as 64 lowercase hex digits, over the image's serialised records sorted bytewise,
   * each preceded by its length as a 4-byte big-endian integer.
   */
  readonly digest: string;
  /** How many records the image writes (`image.records(options)`). */
  readonly recordCount: number;
  /** The records' serialised values in total, in bytes (length prefixes not counted). */
  readonly sizeInBytes: number;
}

const LENGTH_PREFIX_BYTES = 4;

/**
 * The digest of the records the snapshot writer would emit for `image`: `image.records(options)`
 * framed by Kafka's `MetadataRecordSerde`, sorted bytewise, each after its 4-byte big-endian
 * length, hashed with SHA-256. Two equal images have equal digests whatever order their records
 * were applied in (the sort makes the digest independent of the order an image part lists its
 * entries); any field the records carry changes it. The provenance (offset, epoch, log time) is
 * not part of it: a LeaderChange control batch moves the offset without changing the image. Kafka
 * has no such function; its tests compare images with `equals`.
 *
 * Cost: every record is serialised and held until the sort, so this is for tests, tools and
 * end-of-run checks, not for a broker's hot path.
 *
 * @param options How the image is written (record versions by metadata.version); by default
 * the image's own metadata.version, as `image.records()`.
 * @throws {@link UnwritableMetadataError} when `options` selects a metadata.version that cannot
 * hold something the image has (as `image.records(options)`).
 */
export function imageDigest(image: MetadataImage, options?: ImageWriterOptions): ImageDigest {
  const values: Buffer[] = [];
  let sizeInBytes = 0;
  for (const record of image.records(options)) {
    const value = MetadataRecordSerde.INSTANCE.serialize(record);
    values.push(value);
    sizeInBytes += value.length;
  }
  values.sort(Buffer.compare);
  const hash = createHash('sha256');
  const prefix = Buffer.alloc(LENGTH_PREFIX_BYTES);
  for (const value of values) {
    prefix.writeUInt32BE(value.length, 0);
    hash.update(prefix);
    hash.update(value);
  }
  return { digest: hash.digest('hex'), recordCount: values.length, sizeInBytes };
}
