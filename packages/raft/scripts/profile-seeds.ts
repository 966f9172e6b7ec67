// Profiling helper: runs a fixed seed range in-process and prints events/s per seed.
import { runSeed } from '../test/simulation/run-seed.js';

const from = Number(process.argv[2] ?? 100);
const count = Number(process.argv[3] ?? 10);
const startedMs = performance.now();
let events = 0;
for (let seed = from; seed < from + count; seed += 1) {
  const result = await runSeed(seed, {});
  events += result.events;
  process.stdout.write(
    `${seed} ${result.scenario} events ${result.events} violations ${result.violations.length} ${Math.round(result.wallMs)} ms\n`,
  );
}
process.stdout.write(`events/s ${Math.round((events * 1000) / (performance.now() - startedMs))}\n`);
