// Runs every `*.bench.ts` in this folder, one process each so they do not disturb each other's
// heap. `pnpm bench -- <filter>` runs only the files whose name contains <filter>.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const directory = import.meta.dirname;
const filter = process.argv[2] ?? '';
const files = readdirSync(directory)
  .filter((name) => name.endsWith('.bench.ts') && name.includes(filter))
  .sort();

let failures = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file} ==\n`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@kraft/source', join(directory, file)],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) failures += 1;
}
process.exit(failures === 0 ? 0 : 1);
