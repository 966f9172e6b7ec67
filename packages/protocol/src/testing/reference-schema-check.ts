/**
 * Whether the reference-schema comparison can run. Kafka's schemas are read from the shared
 * folder beside the repository, never copied in; a clone without it skips the comparison with
 * one line saying so, but CI (`CI=true`) has that folder, so there a missing one is a failure:
 * the comparisons must not turn into a silent skip.
 */
export type ReferenceSchemaCheck =
  | { readonly kind: 'run' }
  | { readonly kind: 'skip'; readonly notice: string }
  | { readonly kind: 'fail'; readonly reason: string };

/**
 * Decides whether a test run compares our declarations with Kafka's JSON schemas in `directory`:
 * `run` when the folder exists; otherwise `fail` under CI (`CI` set and not `false`/`0`) and
 * `skip` with a one-line notice elsewhere. `environment` is usually `process.env`.
 */
export function referenceSchemaCheck(
  directory: string,
  directoryExists: boolean,
  environment: Readonly<Record<string, string | undefined>>,
): ReferenceSchemaCheck {
  if (directoryExists) return { kind: 'run' };
  const missing = `no Kafka reference schemas at ${directory} (KRAFT_KAFKA_SPEC=<folder> points elsewhere)`;
  if (isContinuousIntegration(environment)) {
    return { kind: 'fail', reason: `${missing}: CI must compare the declarations with them` };
  }
  return { kind: 'skip', notice: `reference-schema comparison skipped: ${missing}` };
}

/** `CI` as CI services set it (`true`, or `1`); unset, empty or `false` is a developer's machine. */
function isContinuousIntegration(environment: Readonly<Record<string, string | undefined>>): boolean {
  const value = environment['CI']?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}
