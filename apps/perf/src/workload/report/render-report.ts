// The HTML report (ADR 0030): Vega-Lite specs compiled and rendered to SVG in Node by Vega's
// headless View, inlined into one page that needs no network and no script to read.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseVega, View } from 'vega';
import { compile } from 'vega-lite';
import type { MarkdownSummary } from '../results.js';
import { type ScenarioResult, scenarioSummary } from '../scenario-summary.js';
import { type ReportChart, type ReportedResult, reportCharts } from './report-charts.js';

export const REPORT_FILE_NAME = 'report.html';
/** Runs share their machine with whatever else it runs: the page says so rather than implying a quiet one. */
const LOADED_MACHINE_NOTE =
  'Figures come from one machine shared with whatever else ran on it meanwhile (a loaded machine, not a quiet benchmark host).';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Run labels name the scenario, rate and size: Vega's default 160 px cuts them off. */
const CHART_CONFIG = { legend: { labelLimit: 360, titleLimit: 360 }, axis: { labelLimit: 360 } } as const;

/** One chart as SVG markup, rendered without a browser or canvas (text widths are estimated). */
export async function renderChartSvg(chart: ReportChart): Promise<string> {
  const view = new View(parseVega(compile({ ...chart.spec, config: CHART_CONFIG }).spec), {
    renderer: 'none',
  });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

function summaryTable(summary: MarkdownSummary): string {
  const rows = summary.rows
    .map(([name, value]) => `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  const notes = (summary.notes ?? []).map((note) => `<li>${escapeHtml(note)}</li>`).join('');
  const [verdict = ''] = summary.verdict.split('\n');
  const failures = summary.verdict
    .split('\n')
    .slice(1)
    .filter((line) => line.startsWith('- '));
  return [
    `<section class="run"><h3>${escapeHtml(summary.title)}</h3>`,
    `<p class="verdict ${verdict.startsWith('PASSED') ? 'passed' : 'failed'}">${escapeHtml(verdict)}</p>`,
    failures.length > 0
      ? `<ul>${failures.map((line) => `<li>${escapeHtml(line.slice(2))}</li>`).join('')}</ul>`
      : '',
    `<table>${rows}</table>`,
    notes === '' ? '' : `<ul class="notes">${notes}</ul>`,
    '</section>',
  ].join('');
}

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; } h3 { font-size: 1.05rem; }
figure { margin: 1rem 0 2rem; } figcaption { color: #555; font-size: 0.9rem; max-width: 44rem; }
table { border-collapse: collapse; font-size: 0.9rem; } th, td { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
th { font-weight: 500; color: #444; } .verdict.passed { color: #1a7f37; } .verdict.failed { color: #c62828; }
.notes { color: #555; font-size: 0.85rem; } .context { color: #555; }
`;

/** The whole page: charts first, then each run's table (the Markdown summary's rows). */
export async function renderReportHtml(
  results: readonly ScenarioResult[],
  context: { readonly generatedAt: string },
): Promise<string> {
  const charts = reportCharts(results as readonly ReportedResult[]);
  const figures = await Promise.all(
    charts.map(
      async (chart) =>
        `<figure class="chart"><h2>${escapeHtml(chart.title)}</h2>${await renderChartSvg(chart)}<figcaption>${escapeHtml(chart.caption)}</figcaption></figure>`,
    ),
  );
  const scenarios = [...new Set(results.map((result) => result.scenario))].join(', ');
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>kraft perf report: ${escapeHtml(scenarios)}</title><style>${STYLE}</style></head><body>`,
    `<h1>kraft perf report</h1><p class="context">${results.length} result(s): ${escapeHtml(scenarios)}. Generated ${escapeHtml(context.generatedAt)}. ${LOADED_MACHINE_NOTE}</p>`,
    ...figures,
    figures.length === 0 ? '<p>No result here has data for a chart.</p>' : '',
    '<h2>Runs</h2>',
    ...results.map((result) => summaryTable(scenarioSummary(result))),
    '</body></html>\n',
  ].join('\n');
}

/** The time in a result's name (`<scenario>-<ISO time with - for : and .>.json`). */
const stampOf = (name: string): string => /\d{4}-\d{2}-\d{2}T[\d-]+Z/.exec(name)?.[0] ?? name;

/** Every `*.json` result in `directory`, oldest first. */
export function readResults(directory: string): ScenarioResult[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort((left, right) => stampOf(left).localeCompare(stampOf(right)))
    .flatMap((name) => {
      const parsed: unknown = JSON.parse(readFileSync(join(directory, name), 'utf8'));
      const scenario = (parsed as { scenario?: unknown } | null)?.scenario;
      return typeof scenario === 'string' ? [parsed as ScenarioResult] : [];
    });
}

/** `pnpm perf report <dir>`: renders `report.html` there from the saved results; its path. */
export async function writeReport(directory: string, results = readResults(directory)): Promise<string> {
  const path = join(directory, REPORT_FILE_NAME);
  writeFileSync(path, await renderReportHtml(results, { generatedAt: new Date().toISOString() }));
  return path;
}
