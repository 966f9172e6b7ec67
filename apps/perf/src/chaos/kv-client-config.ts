import { checkDestinations } from './destinations.js';

/**
 * What the runner hands the kv clients' process (a JSON file, its only argument): the nodes, the
 * workload's shape and bounds, and where the history goes.
 */
export interface KvClientConfig {
  /** Every node's origin (`http://10.213.0.<id>:8080`): the only destinations the clients use. */
  readonly origins: readonly string[];
  /** The run's node addresses: every origin must be on one of them (checked again in the process). */
  readonly addresses: readonly string[];
  /** Concurrent clients, each one operation at a time. */
  readonly clients: number;
  /** The keys they share: few, so that operations on each key are concurrent. */
  readonly keys: readonly string[];
  /** One operation, every attempt included, ends (ok, fail or info) within this. */
  readonly operationTimeoutMs: number;
  /** No key gets more invocations than this, so each key's search stays small enough to finish. */
  readonly maxOperationsPerKey: number;
  /** The clients stop by themselves after this even if the runner never says `stop`. */
  readonly maxWorkloadMs: number;
  /** JSON lines of the history, one write per event (`@kraft/linearizability`'s format). */
  readonly historyPath: string;
  /** Seeds each client's choice of operations, keys and nodes. */
  readonly seed: number;
}

/** Bounds of the config: enough for contention, few enough for the search (and the 2-core machine). */
export const MAX_CLIENTS = 64;
export const MAX_KEYS = 64;

function positive(name: string, value: unknown, maximum = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > maximum)
    throw new RangeError(`kv client config: ${name} must be an integer from 1 to ${maximum}, got ${value}`);
  return value;
}

function strings(name: string, value: unknown, maximum: number): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > maximum)
    throw new RangeError(`kv client config: ${name} must list 1 to ${maximum} strings`);
  if (!value.every((item) => typeof item === 'string' && item !== ''))
    throw new RangeError(`kv client config: ${name} must hold non-empty strings`);
  if (new Set(value).size !== value.length)
    throw new RangeError(`kv client config: ${name} repeats an entry`);
  return value as string[];
}

/**
 * Checks a config as the process reads it: every field in its bounds, and every origin an
 * `http://` URL on one of the run's addresses (nothing else will be sent to).
 */
export function parseKvClientConfig(text: string): KvClientConfig {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new RangeError('kv client config: not an object');
  const fields = value as Record<string, unknown>;
  const addresses = strings('addresses', fields['addresses'], 9);
  const origins = strings('origins', fields['origins'], 9);
  for (const origin of origins) {
    const url = new URL(origin);
    if (url.protocol !== 'http:' || url.origin !== origin)
      throw new RangeError(`kv client config: ${origin} is not an http:// origin`);
    checkDestinations('the kv clients', origin, (host) => addresses.includes(host));
  }
  if (typeof fields['historyPath'] !== 'string' || fields['historyPath'] === '')
    throw new RangeError('kv client config: historyPath must be a path');
  if (typeof fields['seed'] !== 'number' || !Number.isSafeInteger(fields['seed']))
    throw new RangeError('kv client config: seed must be an integer');
  return {
    origins,
    addresses,
    clients: positive('clients', fields['clients'], MAX_CLIENTS),
    keys: strings('keys', fields['keys'], MAX_KEYS),
    operationTimeoutMs: positive('operationTimeoutMs', fields['operationTimeoutMs'], 600_000),
    maxOperationsPerKey: positive('maxOperationsPerKey', fields['maxOperationsPerKey'], 1_000_000),
    maxWorkloadMs: positive('maxWorkloadMs', fields['maxWorkloadMs'], 86_400_000),
    historyPath: fields['historyPath'],
    seed: fields['seed'],
  };
}
