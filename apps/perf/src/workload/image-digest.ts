import { createHash } from 'node:crypto';
import { type MetadataImage, MetadataRecordSerde } from '@kraft/metadata';

/**
 * The image digest the test server prints (`apps/test-server/src/metadata/image-digest.ts`, which
 * an app may not import): SHA-256 over the image's serialised records sorted bytewise, each after
 * its 4-byte big-endian length. Both sides must stay the same definition (ADR 0027); the right
 * home for one shared function is @kraft/metadata.
 */
export function imageDigest(image: MetadataImage): { digest: string; recordCount: number } {
  const sorted = Array.from(image.records(), (record) => MetadataRecordSerde.INSTANCE.write(record)).sort(
    Buffer.compare,
  );
  const hash = createHash('sha256');
  const length = Buffer.alloc(4);
  for (const value of sorted) {
    length.writeUInt32BE(value.length);
    hash.update(length).update(value);
  }
  return { digest: hash.digest('hex'), recordCount: sorted.length };
}
