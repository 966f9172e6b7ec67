import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const EXEC_ENTRY_SCRIPT = join(import.meta.dirname, '..', 'bin', 'exec-entry.sh');
const PACKAGES = ['log', 'metadata', 'protocol', 'raft', 'records', 'transport-tcp'];
const BUILT_AT = new Date('2026-01-02T00:00:00Z');
const EDITED_BEFORE = new Date('2026-01-01T00:00:00Z');
const EDITED_AFTER = new Date('2026-01-03T00:00:00Z');

/** A repository tree shaped like this one: the app's and every package's sources and builds. */
function makeTree(root: string): { appDir: string; source: (path: string) => string } {
  const appDir = join(root, 'apps', 'test-server');
  const file = (path: string, time: Date): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, time, time);
  };
  copyFileSync(EXEC_ENTRY_SCRIPT, join(root, 'exec-entry.sh'));
  file(join(appDir, 'src', 'main.ts'), EDITED_BEFORE);
  file(join(appDir, 'dist', 'main.js'), BUILT_AT);
  for (const name of PACKAGES) {
    file(join(root, 'packages', name, 'src', 'index.ts'), EDITED_BEFORE);
    file(join(root, 'packages', name, 'dist', 'index.js'), BUILT_AT);
  }
  return { appDir, source: (path) => join(root, path) };
}

function entryMode(root: string, appDir: string, environment: NodeJS.ProcessEnv = {}): string {
  const script = `source "${join(root, 'exec-entry.sh')}" && kraft_entry_mode "${appDir}" main`;
  const { KRAFT_FROM_SOURCE: _ignored, ...inherited } = process.env;
  return execFileSync('bash', ['-c', script], {
    encoding: 'utf8',
    env: { ...inherited, ...environment },
  }).trim();
}

describe('bin/exec-entry.sh picks the built entry only when it is current', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kraft-exec-entry-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('runs the build when every dist is newer than every source', () => {
    const { appDir } = makeTree(root);
    expect(entryMode(root, appDir)).toBe('built');
  });

  it('falls back to the sources when one was edited after the oldest build', () => {
    for (const edited of ['apps/test-server/src/main.ts', 'packages/raft/src/index.ts']) {
      const { appDir, source } = makeTree(root);
      utimesSync(source(edited), EDITED_AFTER, EDITED_AFTER);
      expect(entryMode(root, appDir)).toBe('source');
    }
  });

  it('runs the build when a package was edited and rebuilt while another kept an older cached build', () => {
    const { appDir, source } = makeTree(root);
    const rebuiltAt = new Date('2026-01-04T00:00:00Z');
    utimesSync(source('packages/raft/src/index.ts'), EDITED_AFTER, EDITED_AFTER);
    utimesSync(source('packages/raft/dist/index.js'), rebuiltAt, rebuiltAt);
    utimesSync(source('apps/test-server/dist/main.js'), rebuiltAt, rebuiltAt);
    expect(entryMode(root, appDir)).toBe('built');
  });

  it('falls back when the app or a package has no build, or KRAFT_FROM_SOURCE is set', () => {
    for (const missing of ['apps/test-server/dist/main.js', 'packages/metadata/dist/index.js']) {
      const { appDir, source } = makeTree(root);
      rmSync(source(missing));
      expect(entryMode(root, appDir)).toBe('source');
    }
    const { appDir } = makeTree(root);
    expect(entryMode(root, appDir, { KRAFT_FROM_SOURCE: '1' })).toBe('source');
  });

  it('adds --cpu-prof into KRAFT_CPU_PROFILE_DIR, and nothing without it', () => {
    const { appDir } = makeTree(root);
    const script = join(appDir, 'bin', 'exec-entry.sh');
    mkdirSync(dirname(script), { recursive: true });
    copyFileSync(EXEC_ENTRY_SCRIPT, script);
    const entry = join(appDir, 'dist', 'main.js');
    writeFileSync(entry, 'console.log(JSON.stringify(process.execArgv));\n');
    utimesSync(entry, BUILT_AT, BUILT_AT);
    const profileDir = join(root, 'profiles');
    const run = (environment: NodeJS.ProcessEnv): string[] => {
      const { KRAFT_FROM_SOURCE: _ignored, KRAFT_CPU_PROFILE_DIR: _unset, ...inherited } = process.env;
      const output = execFileSync('bash', ['-c', `source "${script}" && exec_entry test main`], {
        encoding: 'utf8',
        env: { ...inherited, ...environment },
      });
      return JSON.parse(output) as string[];
    };
    expect(run({})).not.toContain('--cpu-prof');
    expect(run({ KRAFT_CPU_PROFILE_DIR: profileDir })).toEqual(
      expect.arrayContaining(['--cpu-prof', '--cpu-prof-dir', profileDir]),
    );
    expect(readdirSync(profileDir).some((name) => name.endsWith('.cpuprofile'))).toBe(true);
  });
});
