import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ProcessBindings, runTestServer } from './run-test-server.js';

function bindings() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const signalHandlers: ((signal: string) => void)[] = [];
  const value: ProcessBindings = {
    environment: { LOG_LEVEL: 'silent' },
    stdoutLine: (line) => stdout.push(line),
    stderrText: (text) => stderr.push(text),
    stderrIsTerminal: false,
    onStopSignal: (handler) => signalHandlers.push(handler),
    onUncaughtError: () => {},
  };
  return { value, stdout, stderr, signalHandlers };
}

let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

describe('runTestServer', () => {
  it('prints the usage for --help and exits 0', async () => {
    const io = bindings();
    expect(await runTestServer(['--help'], io.value)).toBe(0);
    expect(io.stdout.join('\n')).toContain('Usage: test-kraft-server-start.sh');
    expect(io.stderr).toEqual([]);
  });

  it('prints the problem and the usage to stderr and exits 2 on a bad command line', async () => {
    const io = bindings();
    expect(await runTestServer(['--replica-directory-id', 'b8tRS7h4TJ2Vt43Dp85v2A'], io.value)).toBe(2);
    expect(io.stderr.join('')).toContain("required option '--config <file>' not specified");
    expect(io.stderr.join('')).toContain('Usage: test-kraft-server-start.sh');
  });

  it('exits 1 on an unreadable or invalid config, before touching any log dir', async () => {
    directory = mkdtempSync(join(tmpdir(), 'kraft-run-test-server-'));
    const configPath = join(directory, 'bad.properties');
    writeFileSync(configPath, `node.id=x\nlog.dirs=${join(directory, 'logs')}\n`);
    const args = ['--replica-directory-id', 'b8tRS7h4TJ2Vt43Dp85v2A'];
    expect(
      await runTestServer(['--config', join(directory, 'missing.properties'), ...args], bindings().value),
    ).toBe(1);
    expect(await runTestServer(['--config', configPath, ...args], bindings().value)).toBe(1);
  });
});
