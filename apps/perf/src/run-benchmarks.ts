// Runs every `*.bench.ts` in this folder, one process each so they do not disturb each other's
// heap. `pnpm bench <name>` runs only the benchmarks whose name contains <name>; `--help` lists them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseBenchmarkCommandLine, USAGE_EXIT_CODE } from './benchmark-command-line.js';

const BENCHMARK_SUFFIX = '.bench.ts';
const directory = import.meta.dirname;
const names = readdirSync(directory)
  .filter((file) => file.endsWith(BENCHMARK_SUFFIX))
  .map((file) => file.slice(0, -BENCHMARK_SUFFIX.length))
  .sort();
const command = parseBenchmarkCommandLine(process.argv.slice(2), names);
if (command.kind === 'help') {
  process.stdout.write(command.text);
  process.exit(0);
}
if (command.kind === 'usage-error') {
  process.stderr.write(command.text);
  process.exit(USAGE_EXIT_CODE);
}

let failures = 0;
for (const name of command.benchmarks) {
  const file = `${name}${BENCHMARK_SUFFIX}`;
  process.stdout.write(`\n== ${file} ==\n`);
  const result = spawnSync(
    process.execPath,
    // --expose-gc: a benchmark may collect before it measures a heap or a pause (metadata does).
    ['--expose-gc', '--import', 'tsx', '--conditions=@kraft/source', join(directory, file)],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) failures += 1;
}
process.exit(failures === 0 ? 0 : 1);
