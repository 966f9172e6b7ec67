const TWO_POW_32 = 4294967296;
/** int64 values whose high word lies in this range are exact doubles (|value| <= 2^53). */
const MAX_SAFE_HIGH_WORD = 0x1fffff;
const MIN_SAFE_HIGH_WORD = -0x200000;

/**
 * Reads a big-endian int64 as a number without going through BigInt (the per-batch hot path).
 * Returns NaN when the value is not a safe integer, so the caller can raise its own typed error.
 */
export function readSafeInt64(buffer: Buffer, offset: number): number {
  const high = buffer.readInt32BE(offset);
  if (high > MAX_SAFE_HIGH_WORD || high < MIN_SAFE_HIGH_WORD) return Number.NaN;
  const value = high * TWO_POW_32 + buffer.readUInt32BE(offset + 4);
  return Number.isSafeInteger(value) ? value : Number.NaN;
}

/** Writes a safe integer as a big-endian int64 without BigInt. */
export function writeSafeInt64(buffer: Buffer, value: number, offset: number): void {
  const high = Math.floor(value / TWO_POW_32);
  buffer.writeInt32BE(high, offset);
  buffer.writeUInt32BE(value - high * TWO_POW_32, offset + 4);
}
