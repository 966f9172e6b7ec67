/** A positive integer from the environment (`KRAFT_BENCH_*`), or `defaultValue` when unset. */
export function countSetting(name: string, defaultValue: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? defaultValue : Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}
