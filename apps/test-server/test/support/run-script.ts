import { spawn } from 'node:child_process';

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one of `bin/`'s scripts as an operator would (bash, the real exit code). Spawned, not
 * spawnSync: the test's event loop keeps reading the servers' output meanwhile.
 */
export function runScript(script: string, argv: readonly string[]): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(script, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
