// The API reference is TypeDoc's (typedoc.json at the root: HTML to open in a browser, markdown
// to read on GitHub). TypeDoc names every exported class, function, variable, interface, type,
// enum and namespace without a doc comment; this reads those warnings back so a check can hold
// them against the committed list of exports still waiting for one (which only shrinks).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from './workspace.js';

const execFileAsync = promisify(execFile);
const TYPEDOC_TIMEOUT_MS = 600_000;
const TYPEDOC_OUTPUT_LIMIT_BYTES = 16 * 1024 * 1024;

/** The committed list of undocumented exports, one `<package> <name> (<kind>)` a line. */
export const undocumentedBaselinePath = join(
  repositoryRoot,
  'tooling',
  'release',
  'api-docs-undocumented.txt',
);

const undocumentedWarning =
  /^\[warning\] (.+) \((\w+)\), defined in (@kraft\/[a-z0-9-]+)\/\S+, does not have any documentation$/;

/** TypeDoc's output for the whole workspace: its log and where the two renderings went. */
export interface TypedocRun {
  readonly log: string;
  readonly htmlPath: string;
  readonly markdownPath: string;
}

/** Runs TypeDoc with the root typedoc.json, writing into `outputPath` instead of docs/api. */
export async function runTypedoc(outputPath: string): Promise<TypedocRun> {
  const htmlPath = join(outputPath, 'html');
  const markdownPath = join(outputPath, 'markdown');
  const { stdout, stderr } = await execFileAsync(
    'pnpm',
    ['exec', 'typedoc', '--html', htmlPath, '--markdown', markdownPath],
    {
      cwd: repositoryRoot,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: TYPEDOC_TIMEOUT_MS,
      maxBuffer: TYPEDOC_OUTPUT_LIMIT_BYTES,
    },
  );
  return { log: `${stdout}${stderr}`, htmlPath, markdownPath };
}

/** The undocumented exports TypeDoc named, as sorted baseline lines. */
export function undocumentedExports(typedocLog: string): string[] {
  const found = new Set<string>();
  for (const rawLine of typedocLog.split('\n')) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
    const line = rawLine.replace(/\u001b\[[0-9;]*m/g, '').trim();
    const match = undocumentedWarning.exec(line);
    if (match !== null) found.add(`${match[3]} ${match[1]} (${match[2]})`);
  }
  return [...found].sort();
}

/** The committed baseline's entries (comment and blank lines skipped). */
export function readUndocumentedBaseline(path: string = undocumentedBaselinePath): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

/** Rewrites the baseline to exactly `entries`. */
export function writeUndocumentedBaseline(
  entries: readonly string[],
  path: string = undocumentedBaselinePath,
) {
  const header = [
    '# Exports that still lack a doc comment, one `<package> <name> (<kind>)` a line.',
    '# The API docs check fails on an undocumented export missing here, and on a line here whose',
    '# export is documented or gone: document an export and delete its line. Regenerate with',
    '# `pnpm docs:baseline` only when moving exports around, never to let a new one in.',
  ];
  writeFileSync(path, `${[...header, ...entries].join('\n')}\n`);
}
