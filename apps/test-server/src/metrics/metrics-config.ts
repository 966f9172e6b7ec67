import { isIP } from 'node:net';
import { parseInt32 } from '../config/config-definitions.js';
import { ConfigError } from '../config/config-error.js';

/**
 * The keys of the opt-in Prometheus endpoint (not Kafka's: Kafka exports JMX and leaves HTTP to
 * an agent). Without `kraft.metrics.port` (or `--metrics-port`) there is no endpoint.
 */
export const METRICS_CONFIG_DEFAULTS: Readonly<Record<string, string | undefined>> = {
  'kraft.metrics.port': undefined,
  'kraft.metrics.host': '127.0.0.1',
};

/** Where the endpoint listens; port 0 asks the system for a free port (logged once bound). */
export interface MetricsEndpointConfig {
  readonly host: string;
  readonly port: number;
  /** Where the port came from, for the message when it cannot be bound. */
  readonly portSetting: '--metrics-port' | 'kraft.metrics.port';
}

/** What the properties say about the endpoint; `port` is undefined when the key is absent. */
export interface MetricsConfig {
  readonly host: string;
  readonly port: number | undefined;
}

const MAXIMUM_PORT = 65_535;

/** A port as the CLI and the properties both accept it: an integer in [0, 65535]. */
export function parseMetricsPort(key: string, text: string): number {
  return parseInt32(key, text, { minimum: 0, maximum: MAXIMUM_PORT });
}

/**
 * `kraft.metrics.port` and `kraft.metrics.host`. The host must be an IP address, so the endpoint
 * binds exactly one interface (a name could resolve to several, or to every interface).
 */
export function parseMetricsConfig(properties: Readonly<Record<string, string>>): MetricsConfig {
  const hostKey = 'kraft.metrics.host';
  const hostText = properties[hostKey] ?? (METRICS_CONFIG_DEFAULTS[hostKey] as string);
  const host = hostText.trim();
  if (isIP(host) === 0) {
    throw new ConfigError(hostKey, hostText, 'expected an IPv4 or IPv6 address to bind, such as 127.0.0.1');
  }
  const portText = properties['kraft.metrics.port'];
  const port =
    portText === undefined || portText.trim() === ''
      ? undefined
      : parseMetricsPort('kraft.metrics.port', portText);
  return { host, port };
}

/** The endpoint to open: `--metrics-port` over `kraft.metrics.port`; undefined when neither is given. */
export function metricsEndpoint(
  config: MetricsConfig,
  commandLinePort: number | undefined,
): MetricsEndpointConfig | undefined {
  if (commandLinePort !== undefined) {
    return { host: config.host, port: commandLinePort, portSetting: '--metrics-port' };
  }
  return config.port === undefined
    ? undefined
    : { host: config.host, port: config.port, portSetting: 'kraft.metrics.port' };
}
