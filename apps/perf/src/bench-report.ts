import { Bench, type BenchOptions } from 'tinybench';

/** Runs a tinybench suite and prints one aligned line per task: ops/s, mean and p99 in µs. */
export async function runSuite(
  title: string,
  tasks: Record<string, () => unknown>,
  options: BenchOptions = { time: 1000 },
): Promise<Map<string, number>> {
  const bench = new Bench(options);
  for (const [name, task] of Object.entries(tasks)) bench.add(name, task);
  await bench.run();
  const opsPerSecond = new Map<string, number>();
  process.stdout.write(`${title}\n`);
  for (const task of bench.tasks) {
    const result = task.result;
    if (result === undefined || !('throughput' in result)) continue;
    const ops = result.throughput.mean;
    opsPerSecond.set(task.name, ops);
    const meanMicros = result.latency.mean * 1000;
    const p99Micros = (result.latency.p99 ?? 0) * 1000;
    process.stdout.write(
      `  ${task.name.padEnd(48)} ${ops.toFixed(0).padStart(12)} ops/s  mean ${meanMicros.toFixed(2)} µs  p99 ${p99Micros.toFixed(2)} µs\n`,
    );
  }
  return opsPerSecond;
}
