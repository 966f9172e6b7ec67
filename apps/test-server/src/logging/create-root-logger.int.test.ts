// The root logger's flush before exit, in a real process whose stderr is a file (as `pnpm perf`
// gives each node). Its writes are asynchronous, on libuv's thread pool: a process that exits
// while one is still queued there (a busy machine, a slow disk, here four long pbkdf2 jobs
// holding every pool thread) must not lose the lines it holds.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';

const APP_DIRECTORY = join(import.meta.dirname, '..', '..');
const ROOT_LOGGER_MODULE = join(import.meta.dirname, 'create-root-logger.ts');

/** Logs two lines while every pool thread is busy, awaits `flush()`, then `process.exit(0)`. */
const CHILD_SCRIPT = `
import { pbkdf2 } from 'node:crypto';
const { createRootLogger } = await import(${JSON.stringify(ROOT_LOGGER_MODULE)});
const root = await createRootLogger({ logLevel: 'info', stderrIsTerminal: false });
for (let job = 0; job < 4; job++) pbkdf2('secret', 'salt', 400_000, 64, 'sha512', () => {});
root.logger.info('first line');
root.logger.info('last line');
await root.flush();
process.exit(0);
`;

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'root-logger-test-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

it('flush() before exit waits for the writes still queued on the thread pool: no line is lost', async () => {
  const stderrPath = join(directory, 'stderr.log');
  const stderr = openSync(stderrPath, 'a');
  const child = spawn(
    process.execPath,
    ['--conditions=@kraft/source', '--import', 'tsx', '--input-type=module', '-e', CHILD_SCRIPT],
    {
      cwd: APP_DIRECTORY,
      stdio: ['ignore', 'ignore', stderr],
      env: { ...process.env, UV_THREADPOOL_SIZE: '4' },
    },
  );
  closeSync(stderr);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, readFileSync(stderrPath, 'utf8')).toBe(0);
  const messages = readFileSync(stderrPath, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  expect(messages).toEqual(['first line', 'last line']);
});
