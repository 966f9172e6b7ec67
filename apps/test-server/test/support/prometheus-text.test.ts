import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

const VALID = `# HELP up Whether it is up
# TYPE up gauge
up 1
# TYPE requests_total counter
requests_total{code="200",path="/a\\"b"} 3 1700000000000
requests_total{code="500",path="/"} 0
# TYPE latency_avg gauge
latency_avg Nan
# TYPE latency summary
latency_sum 1.5e3
latency_count 2
`;

describe('parsePrometheusText', () => {
  it('reads families, labels with escapes, timestamps, NaN and exponents', () => {
    const families = parsePrometheusText(VALID);
    expect(families.get('up')).toMatchObject({ type: 'gauge', help: 'Whether it is up' });
    expect(sampleValue(families, 'requests_total', { code: '200' })).toBe(3);
    expect(families.get('requests_total')?.samples[0]?.labels['path']).toBe('/a"b');
    expect(sampleValue(families, 'latency_avg')).toBeNaN();
    expect(sampleValue(families, 'latency_sum')).toBe(1500);
  });

  it.each([
    ['no final newline', '# TYPE up gauge\nup 1'],
    ['a sample before its TYPE', 'up 1\n'],
    ['a sample of another family', '# TYPE up gauge\ndown 1\n'],
    ['a bad value', '# TYPE up gauge\nup one\n'],
    ['an unquoted label value', '# TYPE up gauge\nup{a=b} 1\n'],
    ['a repeated label', '# TYPE up gauge\nup{a="1",a="2"} 1\n'],
    ['a bad metric name', '# TYPE 1up gauge\n1up 1\n'],
    ['an unknown type', '# TYPE up meter\nup 1\n'],
    ['a second TYPE', '# TYPE up gauge\nup 1\n# TYPE up gauge\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });

  it('sampleValue insists on exactly one matching sample', () => {
    const families = parsePrometheusText(VALID);
    expect(() => sampleValue(families, 'requests_total')).toThrow('2 samples');
    expect(() => sampleValue(families, 'missing')).toThrow('no metric missing');
  });
});
