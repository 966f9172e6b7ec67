import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseProperties } from './load-server-config.js';
import { parseServerConfig } from './server-config.js';

const FIXTURES = join(import.meta.dirname, '../../../../packages/transport-tcp/test/fixtures/tls');
const fixture = (name: string): string => join(FIXTURES, name);

const sslNode = `
node.id=1
listeners=CONTROLLER://127.0.0.1:9093
listener.security.protocol.map=CONTROLLER:SSL
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:9093
log.dirs=/tmp/kraft-logs
`;

function withSsl(lines: readonly string[]): Record<string, string> {
  return parseProperties([sslNode, ...lines].join('\n'));
}

const storeLines = [
  `ssl.keystore.location=${fixture('server-keystore.pem')}`,
  `ssl.truststore.location=${fixture('ca.pem')}`,
];

function errorFrom(properties: Record<string, string>): ConfigError {
  try {
    parseServerConfig(properties);
  } catch (error) {
    if (ConfigError.isConfigError(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('ssl.* config of an SSL controller listener', () => {
  it("reads PEM stores from files with Kafka's defaults", () => {
    const { config, unknownKeys } = parseServerConfig(withSsl(storeLines));
    expect(unknownKeys).toEqual([]);
    expect(config.controllerListener.securityProtocol).toBe('SSL');
    const tls = config.controllerListenerTls!;
    expect(tls.privateKeyPem).toContain('PRIVATE KEY');
    expect(tls.certificateChainPem).toContain('BEGIN CERTIFICATE');
    expect(tls.trustedCertificatesPem).toBe(readFileSync(fixture('ca.pem'), 'utf8'));
    expect(tls).toMatchObject({
      clientAuth: 'none',
      endpointIdentificationAlgorithm: 'https',
      enabledProtocols: ['TLSv1.2', 'TLSv1.3'],
    });
  });

  it('reads inline PEM, an encrypted key, and listener-prefixed overrides', () => {
    const inline = (text: string): string => text.trim().replaceAll('\n', '\\n\\\n');
    const properties = withSsl([
      `ssl.keystore.key=${inline(readFileSync(fixture('server-key-encrypted.pem'), 'utf8'))}`,
      `ssl.keystore.certificate.chain=${inline(readFileSync(fixture('server.pem'), 'utf8'))}`,
      'ssl.key.password=kraft-test-password',
      `ssl.truststore.certificates=${inline(readFileSync(fixture('ca.pem'), 'utf8'))}`,
      'ssl.client.auth=none',
      'listener.name.controller.ssl.client.auth=required',
      'listener.name.controller.ssl.endpoint.identification.algorithm=',
      'ssl.enabled.protocols=TLSv1.3',
    ]);
    const { config, unknownKeys } = parseServerConfig(properties);
    expect(unknownKeys).toEqual([]);
    expect(config.controllerListenerTls).toMatchObject({
      privateKeyPassword: 'kraft-test-password',
      clientAuth: 'required',
      endpointIdentificationAlgorithm: '',
      enabledProtocols: ['TLSv1.3'],
    });
  });

  it('leaves a PLAINTEXT controller listener without TLS', () => {
    const properties = withSsl(['listener.security.protocol.map=CONTROLLER:PLAINTEXT']);
    expect(parseServerConfig(properties).config.controllerListenerTls).toBeUndefined();
  });

  it.each([
    [['ssl.keystore.type=JKS', ...storeLines], 'ssl.keystore.type', 'PEM is the supported type'],
    [['ssl.truststore.type=PKCS12', ...storeLines], 'ssl.truststore.type', 'PEM is the supported type'],
    [
      ['listener.name.controller.ssl.keystore.type=PKCS12', ...storeLines],
      'listener.name.controller.ssl.keystore.type',
      'PEM is the supported type',
    ],
    [[`ssl.truststore.location=${fixture('ca.pem')}`], 'ssl.keystore.location', 'uses SSL'],
    [
      ['ssl.keystore.location=/nonexistent/keystore.pem', `ssl.truststore.location=${fixture('ca.pem')}`],
      'ssl.keystore.location',
      'expected a readable PEM file',
    ],
    [
      [`ssl.keystore.location=${fixture('ca.pem')}`, `ssl.truststore.location=${fixture('ca.pem')}`],
      'ssl.keystore.location',
      'private key and its certificate chain',
    ],
    [
      [
        `ssl.keystore.location=${fixture('server-keystore.pem')}`,
        `ssl.truststore.location=${fixture('server-key.pem')}`,
      ],
      'ssl.truststore.location',
      'expected PEM certificates',
    ],
    [
      [
        `ssl.keystore.location=${fixture('server-keystore-encrypted.pem')}`,
        `ssl.truststore.location=${fixture('ca.pem')}`,
      ],
      'ssl.keystore.location',
      'needs a password',
    ],
    [
      [
        `ssl.keystore.location=${fixture('server-keystore-encrypted.pem')}`,
        'ssl.key.password=wrong',
        `ssl.truststore.location=${fixture('ca.pem')}`,
      ],
      'ssl.key.password',
      'does not decrypt',
    ],
    [['ssl.keystore.password=secret', ...storeLines], 'ssl.keystore.password', 'ssl.key.password'],
    [['ssl.client.auth=always', ...storeLines], 'ssl.client.auth', 'none, requested, required'],
    [
      ['ssl.endpoint.identification.algorithm=ldaps', ...storeLines],
      'ssl.endpoint.identification.algorithm',
      'https',
    ],
    [['ssl.enabled.protocols=TLSv1.1', ...storeLines], 'ssl.enabled.protocols', 'TLSv1.2, TLSv1.3'],
    [['ssl.protocol=SSLv3', ...storeLines], 'ssl.protocol', 'TLS, TLSv1.2, TLSv1.3'],
  ])('refuses %j naming %s', (lines, key, expected) => {
    const error = errorFrom(withSsl(lines));
    expect(error.key).toBe(key);
    expect(error.message).toContain(expected);
  });

  it('refuses SASL controller listeners', () => {
    const error = errorFrom(withSsl(['listener.security.protocol.map=CONTROLLER:SASL_SSL']));
    expect(error.key).toBe('listener.security.protocol.map');
  });
});
