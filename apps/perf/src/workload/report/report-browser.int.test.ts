// The report page in a real browser (Debian's chromium through playwright-core): every chart drew
// (an SVG with a size and marks), nothing logged an error, and a screenshot is taken. Where no
// chromium is installed the test skips with a line saying so (`.ci/run` installs it as root).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from './render-report.js';
import { reportFixtures } from './report-fixtures.js';

const CHROMIUM = process.env['KRAFT_CHROMIUM'] ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) {
  process.stdout.write(
    `report browser test skipped: no chromium at ${CHROMIUM} (apt-get install chromium)\n`,
  );
}
/** KRAFT_KEEP_REPORT_SCREENSHOT=1 keeps the page and its screenshot to look at. */
const keep = process.env['KRAFT_KEEP_REPORT_SCREENSHOT'] === '1';

describe('report page in chromium', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kraft-report-browser-'));
  afterAll(() => {
    if (keep) process.stdout.write(`report page and screenshot kept in ${directory}\n`);
    else rmSync(directory, { recursive: true, force: true });
  });

  it.skipIf(!available)('draws every chart with marks, logs no error, and screenshots', async () => {
    const path = join(directory, 'report.html');
    writeFileSync(path, await renderReportHtml(reportFixtures(), { generatedAt: '2026-01-01T00:00:00Z' }));
    // Root (CI) cannot use chromium's sandbox; the page is our own, with no script.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(pathToFileURL(path).href);
      const charts = await page.$$eval('figure.chart', (figures) =>
        figures.map((figure) => {
          const svg = figure.querySelector('svg');
          const box = svg?.getBoundingClientRect();
          return {
            title: figure.querySelector('h2')?.textContent ?? '',
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            marks: svg?.querySelectorAll('.role-mark path, .role-mark rect, .role-mark line').length ?? 0,
          };
        }),
      );
      expect(charts.map((chart) => chart.title)).toHaveLength(4);
      for (const chart of charts) {
        expect(chart.width, chart.title).toBeGreaterThan(100);
        expect(chart.height, chart.title).toBeGreaterThan(50);
        expect(chart.marks, chart.title).toBeGreaterThan(0);
      }
      expect(errors).toEqual([]);
      const screenshot = join(directory, 'report.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
    }
  });
});
