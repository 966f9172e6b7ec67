import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STARTUP_TIMEOUT_MS } from './support/quorum-checks.js';

const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..', '..');
/** The terminal's interrupt character: the pty turns it into SIGINT for its foreground process group. */
const CTRL_C = '\u0003';
const STOP_TIMEOUT_MS = 15_000;

let temporaryRoot: string | undefined;
let child: ChildProcess | undefined;

afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  if (temporaryRoot !== undefined) rmSync(temporaryRoot, { recursive: true, force: true });
  temporaryRoot = undefined;
  child = undefined;
});

/** The quickstart's dirs under `root` (tsx keeps its own cache there too). */
function quickstartDirectories(root: string): string[] {
  return readdirSync(root).filter((name) => name.startsWith('kraft-quickstart-'));
}

function waitForOutput(output: () => string, text: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (output().includes(text)) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`no '${text}' within ${timeoutMs} ms:\n${output().slice(-2000)}`));
      }
    }, 50);
  });
}

describe('pnpm start (the quickstart) in a terminal', () => {
  it('stops on Ctrl-C with exit 0 through pnpm and removes its temporary dir', async () => {
    temporaryRoot = mkdtempSync(join(tmpdir(), 'kraft-quickstart-test-'));
    // `script` runs the command on a pseudo-terminal, so Ctrl-C reaches pnpm, its shells and
    // node together as a SIGINT to the process group, exactly as in an interactive terminal.
    // `script` starts the command with `$SHELL -c` (here always /bin/sh); `exec` replaces that
    // shell with pnpm, as an interactive shell runs pnpm in the foreground: a non-interactive
    // dash would otherwise die of the SIGINT itself and report 130 for pnpm's clean exit.
    child = spawn('script', ['--quiet', '--return', '--command', 'exec pnpm start', '/dev/null'], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, SHELL: '/bin/sh', TMPDIR: temporaryRoot, LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = once(child, 'exit');
    await waitForOutput(() => output, 'became leader', STARTUP_TIMEOUT_MS);
    expect(quickstartDirectories(temporaryRoot)).toHaveLength(1);
    child.stdin?.write(CTRL_C);
    await waitForOutput(() => output, 'raft server stopped cleanly', STOP_TIMEOUT_MS);
    const [code, signal] = await exited;
    child.stdin?.end();
    expect({ code, signal }, output.slice(-2000)).toEqual({ code: 0, signal: null });
    expect(output).not.toContain('ERR_PNPM');
    expect(output).not.toContain('Command failed');
    expect(quickstartDirectories(temporaryRoot)).toEqual([]);
  });
});
