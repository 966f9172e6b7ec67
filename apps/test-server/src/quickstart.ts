/**
 * `pnpm start`: the single-node quorum of `config/kraft.properties` with a fresh temporary log
 * dir and a random directory id, for a first look. Extra arguments (`--throughput 20000`) are
 * passed on to the server. Ctrl-C stops it cleanly, exits 0 and removes the temporary dir; after
 * a fatal error the dir is kept (its path is printed) for a look at what the node left.
 *
 * The `start` scripts `exec` their command: pnpm runs a script through `sh -c`, and a shell
 * waiting for node dies of the terminal's SIGINT (which reaches the whole process group) while
 * node stops cleanly, so pnpm would report a failed script for a clean stop.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Uuid } from '@kraft/protocol';
import { processBindings } from './process-bindings.js';
import { FATAL_EXIT_CODE, runTestServer } from './run-test-server.js';

const defaultConfigPath = join(import.meta.dirname, '..', 'config', 'kraft.properties');
const workDirectory = mkdtempSync(join(tmpdir(), 'kraft-quickstart-'));
const configPath = join(workDirectory, 'kraft.properties');
const logDirectory = join(workDirectory, 'kraft-logs');
const configText = readFileSync(defaultConfigPath, 'utf8').replace(/^log\.dirs=.*$/m, '');
writeFileSync(configPath, `${configText.trimEnd()}\nlog.dirs=${logDirectory}\n`);
process.stderr.write(`quickstart: config ${configPath}, log dir ${logDirectory}\n`);

const args = [
  '--config',
  configPath,
  '--replica-directory-id',
  Uuid.randomUuid().toString(),
  ...process.argv.slice(2),
];
const exitCode = await runTestServer(args, processBindings());
if (exitCode === FATAL_EXIT_CODE) {
  process.stderr.write(`quickstart: kept ${workDirectory} for inspection\n`);
} else {
  rmSync(workDirectory, { recursive: true, force: true });
}
process.exit(exitCode);
