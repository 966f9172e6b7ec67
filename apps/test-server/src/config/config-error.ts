import { KRaftError } from '@kraft/protocol';

/**
 * A server property with an invalid value (or a required one missing). The message names the
 * key, the value and what is expected, so the operator can fix the file without reading code.
 */
export class ConfigError extends KRaftError {
  readonly key: string;
  readonly value: string | undefined;

  constructor(key: string, value: string | undefined, expected: string) {
    const shown = value === undefined ? 'missing' : `'${value}'`;
    super('INVALID_CONFIG', `invalid value ${shown} for configuration ${key}: ${expected}`);
    this.key = key;
    this.value = value;
  }

  static isConfigError(value: unknown): value is ConfigError {
    return KRaftError.isInstance(value) && value.code === 'INVALID_CONFIG';
  }
}
