import { InvalidConfigurationError, KRaftError } from '@kraft/protocol';

/**
 * A server property with an invalid value (or a required one missing). The message names the
 * key, the value and what is expected, so the operator can fix the file without reading code.
 * It is an `InvalidConfigurationError` (INVALID_CONFIG) that also carries the key and value.
 */
export class ConfigError extends InvalidConfigurationError {
  readonly key: string;
  readonly value: string | undefined;

  constructor(key: string, value: string | undefined, expected: string) {
    const shown = value === undefined ? 'missing' : `'${value}'`;
    super(`invalid value ${shown} for configuration ${key}: ${expected}`);
    this.key = key;
    this.value = value;
  }

  /**
   * Told apart from the packages' own `InvalidConfigurationError` (same code, no key) by its
   * `key`, so an error from an option check is not logged as a property with a blank key.
   */
  static isConfigError(value: unknown): value is ConfigError {
    return (
      KRaftError.isInstance(value) &&
      value.code === 'INVALID_CONFIG' &&
      typeof (value as { key?: unknown }).key === 'string'
    );
  }
}
