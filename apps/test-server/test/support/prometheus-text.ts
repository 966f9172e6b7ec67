/**
 * A strict reader of the Prometheus text exposition format 0.0.4, written from the format's
 * description (not from prom-client, whose output it checks): `# HELP` and `# TYPE` lines, then
 * samples `name{label="value",...} value [timestamp]`. It throws on the first line that breaks
 * the format, naming the line.
 */

export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string | undefined;
  readonly samples: PrometheusSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** Sample names a family of each type may use besides its own name. */
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
};

/** Go's ParseFloat, which Prometheus uses: decimal or exponent forms, NaN and ±Inf in any case. */
function parseValue(text: string, line: string): number {
  const lowered = text.toLowerCase();
  if (lowered === 'nan') return Number.NaN;
  if (lowered === '+inf' || lowered === 'inf') return Number.POSITIVE_INFINITY;
  if (lowered === '-inf') return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) throw new Error(`bad value '${text}' in: ${line}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = /^([^=]+)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/.exec(rest);
    if (match === null) throw new Error(`bad labels '${text}' in: ${line}`);
    const name = match[1] as string;
    if (!LABEL_NAME.test(name) || name in labels) throw new Error(`bad label name '${name}' in: ${line}`);
    labels[name] = (match[2] as string).replace(/\\(["\\n])/g, (_, escaped: string) =>
      escaped === 'n' ? '\n' : escaped,
    );
    rest = rest.slice(match[0].length);
  }
  return labels;
}

function parseSample(line: string): PrometheusSample {
  const match = /^([^\s{]+)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
  if (match === null) throw new Error(`not a sample: ${line}`);
  const name = match[1] as string;
  if (!METRIC_NAME.test(name)) throw new Error(`bad metric name '${name}' in: ${line}`);
  return { name, labels: parseLabels(match[2] ?? '', line), value: parseValue(match[3] as string, line) };
}

/** Every family of the text by name; throws on anything that is not valid exposition text. */
export function parsePrometheusText(text: string): Map<string, PrometheusFamily> {
  if (!text.endsWith('\n')) throw new Error('the text does not end with a newline');
  const families = new Map<string, PrometheusFamily>();
  const helps = new Map<string, string>();
  let current: PrometheusFamily | undefined;
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const comment = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line);
    if (comment !== null) {
      const [, keyword, name, rest = ''] = comment as unknown as [string, string, string, string?];
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name '${name}' in: ${line}`);
      if (keyword === 'HELP') {
        if (helps.has(name)) throw new Error(`second HELP for ${name}`);
        helps.set(name, rest);
        continue;
      }
      if (!TYPES.has(rest)) throw new Error(`bad type '${rest}' in: ${line}`);
      if (families.has(name)) throw new Error(`second TYPE for ${name}`);
      current = { name, type: rest, help: helps.get(name), samples: [] };
      families.set(name, current);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = parseSample(line);
    const allowed = [
      current?.name,
      ...(SUFFIXES[current?.type ?? ''] ?? []).map((suffix) => `${current?.name}${suffix}`),
    ];
    if (current === undefined || !allowed.includes(sample.name)) {
      throw new Error(`sample ${sample.name} outside its family's TYPE block: ${line}`);
    }
    current.samples.push(sample);
  }
  return families;
}

/** The value of the one sample of `name` whose labels include `labels`; throws unless exactly one. */
export function sampleValue(
  families: ReadonlyMap<string, PrometheusFamily>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  // A summary's or histogram's `_sum`, `_count` and `_bucket` samples live in the family without the suffix.
  const family = families.get(name) ?? families.get(name.replace(/_(sum|count|bucket)$/, ''));
  if (family === undefined) throw new Error(`no metric ${name}`);
  const matching = family.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matching.length !== 1)
    throw new Error(`${matching.length} samples of ${name} ${JSON.stringify(labels)}`);
  return (matching[0] as PrometheusSample).value;
}
