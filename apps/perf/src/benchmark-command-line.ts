/** `pnpm bench`'s arguments: which benchmarks to run, or the usage. */
export type BenchmarkCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'usage-error'; readonly text: string }
  | { readonly kind: 'run'; readonly benchmarks: readonly string[] };

/** The exit code for a bad command line, as `pnpm sim`'s and the test server's. */
export const USAGE_EXIT_CODE = 2;

export function benchmarkUsage(names: readonly string[]): string {
  return [
    'Usage: pnpm bench [name ...]',
    '',
    'Runs the benchmarks, each in its own process; with names, only the benchmarks whose name',
    'contains one of them (`pnpm bench log` runs log). Exit 1 if a benchmark fails.',
    '',
    'Benchmarks:',
    ...names.map((name) => `  ${name}`),
    '',
    'Options:',
    '  -h, --help  print this and exit',
    '',
  ].join('\n');
}

/**
 * Reads the arguments against the benchmark names (`log` for `log.bench.ts`). A name that
 * matches no benchmark is an error, not an empty run that looks like success.
 */
export function parseBenchmarkCommandLine(
  args: readonly string[],
  names: readonly string[],
): BenchmarkCommand {
  // `pnpm bench -- log` passes the separator through.
  const filters = args.filter((argument) => argument !== '--');
  const usage = benchmarkUsage(names);
  if (filters.includes('--help') || filters.includes('-h')) return { kind: 'help', text: usage };
  const option = filters.find((argument) => argument.startsWith('-'));
  if (option !== undefined)
    return { kind: 'usage-error', text: `pnpm bench: unknown option ${option}\n\n${usage}` };
  const unmatched = filters.filter((filter) => !names.some((name) => name.includes(filter)));
  if (unmatched.length > 0) {
    const listed = unmatched.map((filter) => `'${filter}'`).join(', ');
    return { kind: 'usage-error', text: `pnpm bench: no benchmark matches ${listed}\n\n${usage}` };
  }
  const benchmarks =
    filters.length === 0 ? names : names.filter((name) => filters.some((filter) => name.includes(filter)));
  return { kind: 'run', benchmarks };
}
