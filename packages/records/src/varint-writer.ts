/** Bytes an unsigned varint of `value` (a non-negative safe integer) takes. */
export function sizeOfUnsignedVarint(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  let size = 5;
  let remaining = Math.floor(value / 0x800000000);
  while (remaining > 0) {
    size += 1;
    remaining = Math.floor(remaining / 0x80);
  }
  return size;
}

/** Writes `value` (a non-negative safe integer) as LEB128 at `position`; returns the next position. */
export function writeUnsignedVarint(buffer: Buffer, position: number, value: number): number {
  let cursor = position;
  let remaining = value;
  while (remaining >= 0x80) {
    buffer[cursor] = (remaining % 0x80) | 0x80;
    cursor += 1;
    remaining = Math.floor(remaining / 0x80);
  }
  buffer[cursor] = remaining;
  return cursor + 1;
}
