/**
 * `bin/kraft-metadata-quorum.sh` runs this file: `runMetadataQuorum` does the work, this module
 * binds it to the process. With `LOG_LEVEL` set, the admin client's transport logs to stderr
 * (pino, as the server's); without it the tool prints only its answer.
 */
import { writeSync } from 'node:fs';
import type { Logger } from '@kraft/protocol';
import { runMetadataQuorum } from './run-metadata-quorum.js';

const logLevel = process.env['LOG_LEVEL'];
let logger: Logger | undefined;
let flushLogs = async (): Promise<void> => {};
if (logLevel !== undefined && logLevel !== '') {
  // Loaded only when asked for: pino and pino-pretty are most of a quiet run's start-up otherwise.
  const { createRootLogger } = await import('../logging/create-root-logger.js');
  const root = await createRootLogger({ logLevel, stderrIsTerminal: process.stderr.isTTY === true });
  logger = root.logger;
  flushLogs = () => root.flush();
}

const exitCode = await runMetadataQuorum(process.argv.slice(2), {
  stdoutLine: (line) => writeSync(1, `${line}\n`),
  stderrText: (text) => writeSync(2, text.endsWith('\n') ? text : `${text}\n`),
  ...(logger === undefined ? {} : { logger }),
});
await flushLogs();
process.exit(exitCode);
