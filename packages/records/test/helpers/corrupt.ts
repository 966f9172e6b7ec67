import { crc32c } from '../../src/crc32c.js';

/** Rewrites the CRC of the batch at `position` so structural corruption is not caught by the CRC first. */
export function fixCrc(bytes: Buffer, position = 0): Buffer {
  const end = position + 12 + bytes.readInt32BE(position + 8);
  bytes.writeUInt32BE(crc32c(bytes.subarray(position + 21, end)), position + 17);
  return bytes;
}
