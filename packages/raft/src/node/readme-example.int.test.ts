// The README's "embed a replicated state machine" example, run as a user would run it: its exact
// text in a file of this package (so `@kraft/raft` resolves to this source), in a fresh Node
// process. The process must print the committed value and then exit on its own: a node that left
// a socket, a timer or a lock behind on close() would keep it alive until the test times out.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const packageDirectory = join(import.meta.dirname, '..', '..');
const runFile = promisify(execFile);

/** The first `ts` block of the README: the example the registry test installs and runs too. */
function readmeExample(): string {
  const readme = readFileSync(join(packageDirectory, 'README.md'), 'utf8');
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(readme);
  if (match === null) throw new Error('README.md has no ts example');
  return match[1] as string;
}

it('runs the README example: it commits, reads its own write and exits after close()', async () => {
  const example = readmeExample();
  expect(example.split('\n').length).toBeLessThanOrEqual(36);
  const file = join(packageDirectory, `.readme-example-${process.pid}.ts`);
  writeFileSync(file, example);
  try {
    const { stdout } = await runFile(
      process.execPath,
      ['--conditions=@kraft/source', '--import', 'tsx', file],
      { cwd: packageDirectory, timeout: 60_000 },
    );
    expect(stdout).toMatch(/\{ offset: \d+, epoch: \d+ \} hello leader/);
  } finally {
    rmSync(file, { force: true });
  }
});
