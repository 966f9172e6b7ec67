// A StrykerJS reporter that prints each surviving or uncovered mutant as soon as it is tested, so
// tests can be written while a long run goes on (the clear-text report comes only at the end).
// Locations are 1-based (line:column), as in the HTML and JSON reports.
// The plugin object is spelled out (what `declareClassPlugin` returns): @stryker-mutator/api is
// not a direct dependency of the root.

class SurvivorReporter {
  onMutantTested(result) {
    if (result.status !== 'Survived' && result.status !== 'NoCoverage') return;
    const { line, column } = result.location.start;
    const replacement = (result.replacement ?? '').replace(/\s+/g, ' ').slice(0, 160);
    process.stdout.write(
      `[${result.status}] ${result.fileName}:${line}:${column} #${result.id} ${result.mutatorName}: ${replacement}\n`,
    );
  }
}

export const strykerPlugins = [{ kind: 'Reporter', name: 'survivors', injectableClass: SurvivorReporter }];
