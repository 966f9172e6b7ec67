import { KRaftError } from './kraft-error.js';

/**
 * A setting or option that cannot be used: out of range, of the wrong type, missing, or a
 * malformed configuration or metadata file (Kafka's InvalidConfigurationException, error
 * INVALID_CONFIG). The one such error for every kraft package.
 */
export class InvalidConfigurationError extends KRaftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_CONFIG', message, options);
  }
}
