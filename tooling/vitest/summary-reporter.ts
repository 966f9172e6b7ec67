// Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own
// summary. CI reads that line; vitest's coloured summary is not in that form.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let testsInModule = 0;
      for (const testCase of testModule.children.allTests()) {
        testsInModule += 1;
        const state = testCase.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      // A module that failed to load has no tests but must still count as a failure.
      if (testsInModule === 0 && testModule.state() === 'failed') failed += 1;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
