import { describe, expect, it } from 'vitest';
import { type KvClientConfig, parseKvClientConfig } from './kv-client-config.js';

const config: KvClientConfig = {
  origins: ['http://10.213.0.1:8080', 'http://10.213.0.2:8080'],
  addresses: ['10.213.0.1', '10.213.0.2'],
  clients: 6,
  keys: ['k0', 'k1'],
  operationTimeoutMs: 6_000,
  maxOperationsPerKey: 3_000,
  maxWorkloadMs: 180_000,
  historyPath: '/tmp/kraftchaos-1-ab/client/history.jsonl',
  seed: 4711,
};

const parse = (overrides: Record<string, unknown>) =>
  parseKvClientConfig(JSON.stringify({ ...config, ...overrides }));

describe('parseKvClientConfig', () => {
  it('reads back what the runner wrote', () => {
    expect(parseKvClientConfig(JSON.stringify(config))).toEqual(config);
  });

  it("refuses an origin outside the run's addresses, or one that is not a plain http:// origin", () => {
    expect(() => parse({ origins: ['http://10.213.0.1:8080', 'http://127.0.0.1:8080'] })).toThrow(
      /destination 127\.0\.0\.1/,
    );
    expect(() => parse({ origins: ['https://10.213.0.1:8080'] })).toThrow(/not an http:\/\/ origin/);
    expect(() => parse({ origins: ['http://10.213.0.1:8080/kv'] })).toThrow(/not an http:\/\/ origin/);
    expect(() => parse({ origins: ['http://10.213.0.1'] })).toThrow(/names no destination/);
  });

  it('refuses fields out of their bounds', () => {
    for (const overrides of [
      { clients: 0 },
      { clients: 65 },
      { keys: [] },
      { keys: ['k0', 'k0'] },
      { operationTimeoutMs: 1.5 },
      { maxOperationsPerKey: -1 },
      { historyPath: '' },
      { seed: 'x' },
      { origins: 'http://10.213.0.1:8080' },
    ]) {
      expect(() => parse(overrides), JSON.stringify(overrides)).toThrow(RangeError);
    }
  });
});
