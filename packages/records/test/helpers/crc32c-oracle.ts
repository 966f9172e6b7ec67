/**
 * A pure-JS CRC-32C (slicing-by-8), used only by tests as an independent oracle for the native
 * implementation. Reflected polynomial 0x82F63B78, init and final XOR 0xFFFFFFFF.
 */
const POLYNOMIAL = 0x82f63b78;
const TABLES: Uint32Array[] = buildTables();

function buildTables(): Uint32Array[] {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const first = tables[0] as Uint32Array;
  for (let index = 0; index < 256; index += 1) {
    let crc = index;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
    first[index] = crc >>> 0;
  }
  for (let index = 0; index < 256; index += 1) {
    for (let table = 1; table < 8; table += 1) {
      const previous = (tables[table - 1] as Uint32Array)[index] as number;
      (tables[table] as Uint32Array)[index] = ((previous >>> 8) ^ (first[previous & 0xff] as number)) >>> 0;
    }
  }
  return tables;
}

export function crc32cOracle(bytes: Uint8Array): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
  ];
  let crc = 0xffffffff;
  let index = 0;
  for (; index + 8 <= bytes.length; index += 8) {
    const low =
      (crc ^
        ((bytes[index] as number) |
          ((bytes[index + 1] as number) << 8) |
          ((bytes[index + 2] as number) << 16) |
          ((bytes[index + 3] as number) << 24))) >>>
      0;
    crc =
      (t7[low & 0xff] as number) ^
      (t6[(low >>> 8) & 0xff] as number) ^
      (t5[(low >>> 16) & 0xff] as number) ^
      (t4[low >>> 24] as number) ^
      (t3[bytes[index + 4] as number] as number) ^
      (t2[bytes[index + 5] as number] as number) ^
      (t1[bytes[index + 6] as number] as number) ^
      (t0[bytes[index + 7] as number] as number);
  }
  for (; index < bytes.length; index += 1) {
    crc = (crc >>> 8) ^ (t0[(crc ^ (bytes[index] as number)) & 0xff] as number);
  }
  return (crc ^ 0xffffffff) >>> 0;
}
