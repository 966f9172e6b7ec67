import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where results go without `--out`: under the OS temp dir, never in the repository. */
export function defaultResultsDirectory(): string {
  return join(tmpdir(), 'kraft-perf-results');
}

/** One scenario's figures as a Markdown table of `[name, value]` rows, after a title and a verdict. */
export interface MarkdownSummary {
  readonly title: string;
  readonly verdict: string;
  readonly rows: readonly (readonly [string, string])[];
  readonly notes?: readonly string[];
}

export function renderMarkdown(summary: MarkdownSummary): string {
  return [
    `# ${summary.title}`,
    '',
    summary.verdict,
    '',
    '| figure | value |',
    '|---|---|',
    ...summary.rows.map(([name, value]) => `| ${name} | ${value} |`),
    '',
    ...(summary.notes ?? []).map((note) => `- ${note}`),
    '',
  ].join('\n');
}

/** Writes `<scenario>-<time>.json`, `.md` and `.html` (the run's report page) into `directory`; returns their paths. */
export function writeResults(
  directory: string,
  scenario: string,
  result: unknown,
  summary: MarkdownSummary,
  html: string,
): { json: string; markdown: string; html: string } {
  mkdirSync(directory, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const paths = {
    json: join(directory, `${scenario}-${stamp}.json`),
    markdown: join(directory, `${scenario}-${stamp}.md`),
    html: join(directory, `${scenario}-${stamp}.html`),
  };
  writeFileSync(paths.json, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(paths.markdown, renderMarkdown(summary));
  writeFileSync(paths.html, html);
  return paths;
}

export const formatNumber = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export const formatMebibytes = (bytes: number): string => `${formatNumber(bytes / (1024 * 1024), 1)} MiB`;

/** A summary's verdict: `passedText`, or FAILED with one bullet per failure. */
export function verdictOf(
  result: { readonly passed: boolean; readonly failures: readonly string[] },
  passedText = 'PASSED',
): string {
  return result.passed
    ? passedText
    : `FAILED:\n\n${result.failures.map((failure) => `- ${failure}`).join('\n')}`;
}
