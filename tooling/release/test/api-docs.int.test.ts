// `pnpm docs` renders every package's API, and no export goes undocumented beyond the committed
// list of those still waiting for a comment (tooling/release/api-docs-undocumented.txt).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  readUndocumentedBaseline,
  runTypedoc,
  type TypedocRun,
  undocumentedExports,
  writeUndocumentedBaseline,
} from '../src/api-docs.js';
import { publishedPackages } from '../src/workspace.js';

const outputPath = mkdtempSync(join(tmpdir(), 'kraft-api-docs-'));
let run: TypedocRun | undefined;

function runOrThrow(): TypedocRun {
  if (run === undefined) throw new Error('TypeDoc did not run');
  return run;
}

beforeAll(async () => {
  run = await runTypedoc(outputPath);
}, 600_000);

afterAll(() => {
  rmSync(outputPath, { recursive: true, force: true });
});

it('renders HTML and markdown pages for every published package', () => {
  const { htmlPath, markdownPath } = runOrThrow();
  expect(existsSync(join(htmlPath, 'index.html'))).toBe(true);
  for (const { name } of publishedPackages()) {
    expect(existsSync(join(markdownPath, name, 'README.md')), name).toBe(true);
  }
});

it('leaves no export undocumented beyond the committed list, and the list holds only undocumented ones', () => {
  const undocumented = undocumentedExports(runOrThrow().log);
  if (process.env['UPDATE_API_BASELINE'] === '1') writeUndocumentedBaseline(undocumented);
  const baseline = new Set(readUndocumentedBaseline());
  const current = new Set(undocumented);
  expect({
    undocumentedNotInTheList: undocumented.filter((entry) => !baseline.has(entry)),
    listedButDocumentedOrGone: [...baseline].filter((entry) => !current.has(entry)),
  }).toEqual({ undocumentedNotInTheList: [], listedButDocumentedOrGone: [] });
});
