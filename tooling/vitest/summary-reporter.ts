// Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own
// summary. CI reads that line; vitest's coloured summary is not in that form.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let failedInModule = 0;
      for (const testCase of testModule.children.allTests()) {
        const state = testCase.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failedInModule += 1;
        else skipped += 1;
      }
      // A module that failed to load, or whose beforeAll/afterAll threw (its tests then count as
      // skipped), has no failed test but must still count as a failure.
      if (failedInModule === 0 && testModule.state() === 'failed') failedInModule = 1;
      failed += failedInModule;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
