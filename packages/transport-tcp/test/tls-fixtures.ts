import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TlsSettings } from '../src/tls-context.js';

/** The committed test certificates (see fixtures/tls/README.md). */
export const TLS_FIXTURES_DIRECTORY = join(import.meta.dirname, 'fixtures', 'tls');

/** The text of one fixture file. */
export function tlsFixture(name: string): string {
  return readFileSync(join(TLS_FIXTURES_DIRECTORY, name), 'utf8');
}

/** The key and certificate of `name` (server, client, wrong-host, untrusted) trusting the test CA. */
export function tlsSettingsFor(name: string, overrides: Partial<TlsSettings> = {}): TlsSettings {
  return {
    privateKeyPem: tlsFixture(`${name}-key.pem`),
    certificateChainPem: tlsFixture(`${name}.pem`),
    trustedCertificatesPem: tlsFixture('ca.pem'),
    ...overrides,
  };
}

/** Trusts the test CA and has no keystore: a client without a certificate. */
export function trustOnlySettings(overrides: Partial<TlsSettings> = {}): TlsSettings {
  return { trustedCertificatesPem: tlsFixture('ca.pem'), ...overrides };
}
