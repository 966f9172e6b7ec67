import { type ChildProcess, fork } from 'node:child_process';

/**
 * Forks `entryPoint` (a TypeScript file of this repository) on the workspace sources, with its
 * spec as the one JSON argument, stdout and stderr shared with this process and an IPC channel
 * for its messages.
 */
export function forkSourceChild(entryPoint: string, spec: unknown): ChildProcess {
  return fork(entryPoint, [JSON.stringify(spec)], {
    execArgv: ['--import', 'tsx', '--conditions=@kraft/source'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
