import type { ProcessBindings } from './run-test-server.js';

/** Binds the server to this process: stdout for stats, stderr for logs, SIGINT/SIGTERM to stop. */
export function processBindings(): ProcessBindings {
  return {
    environment: process.env,
    stdoutLine: (line) => process.stdout.write(`${line}\n`),
    stderrText: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    stderrIsTerminal: process.stderr.isTTY === true,
    onStopSignal: (handler) => {
      process.on('SIGINT', () => handler('SIGINT'));
      process.on('SIGTERM', () => handler('SIGTERM'));
    },
    onUncaughtError: (handler) => {
      process.on('uncaughtException', handler);
      process.on('unhandledRejection', handler);
    },
  };
}
