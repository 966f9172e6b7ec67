import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.js';
import { parseProperties } from '../config/load-server-config.js';
import { parseServerConfig } from '../config/server-config.js';
import { metricsEndpoint } from './metrics-config.js';

const singleNode = `
node.id=0
listeners=PLAINTEXT://localhost:9092
controller.listener.names=PLAINTEXT
controller.quorum.voters=0@localhost:9092
log.dirs=/tmp/kraft-logs
`;

function configFrom(extra: string) {
  return parseServerConfig(parseProperties(`${singleNode}\n${extra}\n`));
}

function errorFrom(extra: string): ConfigError {
  try {
    configFrom(extra);
  } catch (error) {
    if (ConfigError.isConfigError(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('kraft.metrics.* keys', () => {
  it('are known keys: no endpoint by default, on 127.0.0.1 unless a host is given', () => {
    const defaults = configFrom('');
    expect(defaults.config.metrics).toEqual({ host: '127.0.0.1', port: undefined });
    expect(metricsEndpoint(defaults.config.metrics, undefined)).toBeUndefined();
    const configured = configFrom('kraft.metrics.port=9404\nkraft.metrics.host=::1');
    expect(configured.unknownKeys).toEqual([]);
    expect(metricsEndpoint(configured.config.metrics, undefined)).toEqual({
      host: '::1',
      port: 9404,
      portSetting: 'kraft.metrics.port',
    });
  });

  it('--metrics-port overrides kraft.metrics.port and opens the endpoint on its own; port 0 is allowed', () => {
    const { config } = configFrom('kraft.metrics.port=9404');
    expect(metricsEndpoint(config.metrics, 0)).toEqual({
      host: '127.0.0.1',
      port: 0,
      portSetting: '--metrics-port',
    });
    expect(metricsEndpoint(configFrom('').config.metrics, 9500)).toMatchObject({ port: 9500 });
  });

  it.each([
    ['kraft.metrics.port=65536', 'kraft.metrics.port', "'65536'"],
    ['kraft.metrics.port=-1', 'kraft.metrics.port', 'in [0, 65535]'],
    ['kraft.metrics.port=http', 'kraft.metrics.port', 'expected a 32-bit integer in [0, 65535]'],
    ['kraft.metrics.host=localhost', 'kraft.metrics.host', 'expected an IPv4 or IPv6 address'],
    ['kraft.metrics.host=', 'kraft.metrics.host', 'expected an IPv4 or IPv6 address'],
  ])('refuses %s naming the key', (line, key, message) => {
    const error = errorFrom(line);
    expect(error.key).toBe(key);
    expect(error.message).toContain(message);
  });
});
