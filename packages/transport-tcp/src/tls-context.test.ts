import { describe, expect, it } from 'vitest';
import { tlsFixture, tlsSettingsFor, trustOnlySettings } from '../test/tls-fixtures.js';
import { InvalidTlsConfigError } from './errors/invalid-tls-config-error.js';
import { TlsContext, type TlsSettings } from './tls-context.js';

function failureOf(settings: TlsSettings): InvalidTlsConfigError {
  try {
    TlsContext.create(settings);
  } catch (err) {
    if (err instanceof InvalidTlsConfigError) return err;
    throw err;
  }
  throw new Error('expected an InvalidTlsConfigError');
}

describe('TlsContext', () => {
  it('accepts a keystore with its truststore, and an encrypted key with its password', () => {
    expect(TlsContext.create(tlsSettingsFor('server')).serverOptions()).toMatchObject({
      requestCert: false,
      rejectUnauthorized: false,
    });
    const encrypted = TlsContext.create(
      tlsSettingsFor('server', {
        privateKeyPem: tlsFixture('server-key-encrypted.pem'),
        privateKeyPassword: 'kraft-test-password',
        clientAuth: 'required',
      }),
    );
    expect(encrypted.serverOptions()).toMatchObject({ requestCert: true, rejectUnauthorized: true });
    expect(
      TlsContext.create(tlsSettingsFor('server', { clientAuth: 'requested' })).serverOptions(),
    ).toMatchObject({ requestCert: true, rejectUnauthorized: false });
  });

  it('names the setting of each unusable piece of material', () => {
    const encryptedKey = tlsFixture('server-key-encrypted.pem');
    expect(failureOf(tlsSettingsFor('server', { privateKeyPem: encryptedKey })).setting).toBe(
      'privateKeyPem',
    );
    expect(
      failureOf(tlsSettingsFor('server', { privateKeyPem: encryptedKey, privateKeyPassword: 'wrong' }))
        .setting,
    ).toBe('privateKeyPassword');
    expect(failureOf(tlsSettingsFor('server', { privateKeyPem: 'not a key' })).setting).toBe('privateKeyPem');
    expect(failureOf(tlsSettingsFor('server', { certificateChainPem: 'no certificate' })).setting).toBe(
      'certificateChainPem',
    );
    const mismatch = failureOf(tlsSettingsFor('server', { privateKeyPem: tlsFixture('client-key.pem') }));
    expect(mismatch.setting).toBe('certificateChainPem');
    expect(mismatch.message).toContain('does not match');
    const corrupt = tlsFixture('ca.pem').replace(/[A-Za-z]{8}/, 'AAAAAAAA');
    expect(failureOf(trustOnlySettings({ trustedCertificatesPem: corrupt })).setting).toBe(
      'trustedCertificatesPem',
    );
    expect(failureOf({ privateKeyPem: tlsFixture('server-key.pem') }).setting).toBe('certificateChainPem');
    expect(failureOf(trustOnlySettings({ enabledProtocols: [] })).setting).toBe('enabledProtocols');
    expect(failureOf(trustOnlySettings({ enabledProtocols: ['TLSv1.1' as never] })).setting).toBe(
      'enabledProtocols',
    );
  });

  it('refuses to serve a listener without a keystore', () => {
    expect(() => TlsContext.create(trustOnlySettings()).serverOptions()).toThrow(InvalidTlsConfigError);
  });

  it('checks the peer name under https only, and sends SNI for DNS names only', () => {
    const verifying = TlsContext.create(trustOnlySettings()).clientOptions('127.0.0.1');
    expect(verifying.servername).toBeUndefined();
    expect(verifying.rejectUnauthorized).toBe(true);
    expect(TlsContext.create(trustOnlySettings()).clientOptions('localhost').servername).toBe('localhost');
    const nameless = TlsContext.create(trustOnlySettings({ endpointIdentificationAlgorithm: '' }));
    const options = nameless.clientOptions('127.0.0.1');
    expect(options.rejectUnauthorized).toBe(true);
    expect(options.checkServerIdentity?.('127.0.0.1', {} as never)).toBeUndefined();
  });
});
