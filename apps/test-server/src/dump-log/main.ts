/**
 * `bin/kraft-dump-log.sh` runs this file: `runDumpLog` does the work, this module binds it to the
 * process. Output is written synchronously, so exiting right after loses nothing.
 */
import { writeSync } from 'node:fs';
import { runDumpLog } from './run-dump-log.js';

/** Lines are gathered into writes of about this size: one syscall per line would dominate. */
const STDOUT_CHUNK_BYTES = 64 * 1024;

let pending: string[] = [];
let pendingBytes = 0;

function flushStdout(): void {
  if (pending.length === 0) return;
  writeSync(1, pending.join(''));
  pending = [];
  pendingBytes = 0;
}

function stdoutLine(line: string): void {
  pending.push(line, '\n');
  pendingBytes += line.length + 1;
  if (pendingBytes >= STDOUT_CHUNK_BYTES) flushStdout();
}

let exitCode: number;
try {
  exitCode = runDumpLog(process.argv.slice(2), {
    stdoutLine,
    stderrText: (text) => {
      flushStdout();
      writeSync(2, text.endsWith('\n') ? text : `${text}\n`);
    },
  });
} finally {
  flushStdout();
}
process.exit(exitCode);
