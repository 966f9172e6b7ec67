import { KRaftError } from '@kraft/protocol';
import type { TlsSettings } from '../tls-context.js';

/**
 * TLS material that cannot be used: an unreadable or encrypted-without-password private key, a
 * certificate that does not parse, a key that does not match its certificate. `setting` names the
 * `TlsSettings` field, so a caller reading Kafka's `ssl.*` keys can name the key it came from.
 */
export class InvalidTlsConfigError extends KRaftError {
  readonly setting: keyof TlsSettings;

  constructor(setting: keyof TlsSettings, message: string, options?: { cause?: unknown }) {
    super('INVALID_TLS_CONFIG', message, options);
    this.setting = setting;
  }
}
