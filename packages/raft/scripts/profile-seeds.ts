// Profiling and A/B helper: runs a fixed seed range in-process (one core) and prints each seed's
// trace hash, then seeds/s, events/s and CPU time. Two trees give equal hashes iff the seeds
// behaved identically. Profile with:
//   node --cpu-prof --import tsx --conditions=@kraft/source packages/raft/scripts/profile-seeds.ts 1 150
import { runSeed } from '../test/simulation/run-seed.js';

const from = Number(process.argv[2] ?? 100);
const count = Number(process.argv[3] ?? 10);
const startedMs = performance.now();
const startedCpu = process.cpuUsage();
let events = 0;
for (let seed = from; seed < from + count; seed += 1) {
  const result = await runSeed(seed, {});
  events += result.events;
  process.stdout.write(
    `${seed} ${result.traceHash} ${result.scenario} events ${result.events} ` +
      `violations ${result.violations.length} ${Math.round(result.wallMs)} ms\n`,
  );
}
const wallMs = performance.now() - startedMs;
const cpu = process.cpuUsage(startedCpu);
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(
  `seeds ${count} wall ${Math.round(wallMs)} ms cpu ${Math.round(cpuMs)} ms ` +
    `seeds/s ${((count * 1000) / wallMs).toFixed(2)} events/s ${Math.round((events * 1000) / wallMs)}\n`,
);
