import { ProtocolError } from '../errors/protocol-error.js';

/**
 * Narrows an int64 wire value (offsets, epochs, timestamps) to a number. Values beyond 2^53
 * cannot be represented exactly, so they raise a typed error instead of silently rounding.
 */
export function toSafeNumber(value: bigint, fieldName = ''): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new ProtocolError(`${value} is not a safe integer`, fieldName);
  }
  return Number(value);
}
