import { reportHelpOrUsageError } from '../cli/command-line.js';
import { parseDumpLogCommandLine } from './dump-log-command-line.js';
import { DumpLogError } from './dump-log-error.js';
import { dumpLogFile } from './log-dump.js';

export interface DumpLogBindings {
  readonly stdoutLine: (line: string) => void;
  readonly stderrText: (text: string) => void;
}

/** Exit code when a file cannot be read or decoded. */
export const BAD_FILE_EXIT_CODE = 1;

/**
 * `kraft-dump-log.sh --files a.log,b.checkpoint [--json]`: dumps each file in turn and returns
 * the exit code: 0 when every file decoded, 1 at the first file that does not (what was printed
 * before it stays printed), 2 for a bad command line.
 */
export function runDumpLog(argv: readonly string[], bindings: DumpLogBindings): number {
  const commandLine = parseDumpLogCommandLine(argv);
  if (commandLine.kind !== 'run') return reportHelpOrUsageError(commandLine, bindings);
  const { files, format } = commandLine.options;
  for (const file of files) {
    try {
      dumpLogFile(file, { format, writeLine: bindings.stdoutLine });
    } catch (error) {
      if (!DumpLogError.isDumpLogError(error)) throw error;
      bindings.stderrText(`kraft-dump-log: ${error.message}`);
      return BAD_FILE_EXIT_CODE;
    }
  }
  return 0;
}
