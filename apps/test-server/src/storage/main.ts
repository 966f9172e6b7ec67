/**
 * `bin/kraft-storage.sh` runs this file: `runStorageTool` does the work, this module binds it to
 * the process. Output is written synchronously, so exiting right after loses nothing.
 */
import { writeSync } from 'node:fs';
import { runStorageTool } from './run-storage-tool.js';

process.exit(
  runStorageTool(process.argv.slice(2), {
    stdoutLine: (line) => writeSync(1, `${line}\n`),
    stderrText: (text) => writeSync(2, text.endsWith('\n') ? text : `${text}\n`),
  }),
);
