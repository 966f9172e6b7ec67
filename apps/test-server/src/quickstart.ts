/**
 * `pnpm start`: the single-node quorum of `config/kraft.properties` with a fresh temporary log
 * dir and a random directory id, for a first look. Extra arguments (`--throughput 20000`) are
 * passed on to the server.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Uuid } from '@kraft/protocol';
import { processBindings } from './process-bindings.js';
import { runTestServer } from './run-test-server.js';

const defaultConfigPath = join(import.meta.dirname, '..', 'config', 'kraft.properties');
const workDirectory = mkdtempSync(join(tmpdir(), 'kraft-quickstart-'));
const configPath = join(workDirectory, 'kraft.properties');
const configText = readFileSync(defaultConfigPath, 'utf8').replace(/^log\.dirs=.*$/m, '');
writeFileSync(configPath, `${configText.trimEnd()}\nlog.dirs=${join(workDirectory, 'kraft-logs')}\n`);
process.stderr.write(`quickstart: config ${configPath}, log dir ${join(workDirectory, 'kraft-logs')}\n`);

const args = [
  '--config',
  configPath,
  '--replica-directory-id',
  Uuid.randomUuid().toString(),
  ...process.argv.slice(2),
];
process.exit(await runTestServer(args, processBindings()));
