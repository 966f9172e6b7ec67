import { readFileSync } from 'node:fs';
import {
  InvalidTlsConfigError,
  type SslClientAuth,
  TlsContext,
  type TlsProtocolVersion,
  type TlsSettings,
} from '@kraft/transport-tcp';
import { parseList } from './config-definitions.js';
import { ConfigError } from './config-error.js';

/** Kafka's `ssl.*` keys this server reads, with its defaults (PEM stores only: Node reads no JKS). */
export const SSL_CONFIG_DEFAULTS: Readonly<Record<string, string | undefined>> = {
  // Kafka's default is JKS, which Node cannot read; PEM is the one supported type.
  'ssl.keystore.type': 'PEM',
  'ssl.keystore.location': undefined,
  'ssl.keystore.password': undefined,
  'ssl.keystore.key': undefined,
  'ssl.keystore.certificate.chain': undefined,
  'ssl.key.password': undefined,
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': undefined,
  'ssl.truststore.password': undefined,
  'ssl.truststore.certificates': undefined,
  'ssl.client.auth': 'none',
  'ssl.endpoint.identification.algorithm': 'https',
  'ssl.enabled.protocols': 'TLSv1.2,TLSv1.3',
  'ssl.protocol': 'TLSv1.3',
};

const SUPPORTED_STORE_TYPE = 'PEM';
const CLIENT_AUTH_VALUES: readonly SslClientAuth[] = ['none', 'requested', 'required'];
const PROTOCOL_VALUES: readonly TlsProtocolVersion[] = ['TLSv1.2', 'TLSv1.3'];
/** `ssl.protocol` names the SSLContext protocol in Java; `TLS` there means "the newest". */
const SSL_PROTOCOL_VALUES: readonly string[] = ['TLS', 'TLSv1.2', 'TLSv1.3'];
const PRIVATE_KEY_PATTERN = /-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]+-----END [A-Z ]*PRIVATE KEY-----/;
const CERTIFICATE_PATTERN = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** True for `listener.name.<listener>.ssl.*` keys naming one of the keys above. */
export function isListenerSslKey(key: string): boolean {
  const match = /^listener\.name\.[^.]+\.(ssl\..+)$/.exec(key);
  return match !== null && (match[1] as string) in SSL_CONFIG_DEFAULTS;
}

/**
 * The `ssl.*` settings of listener `listenerName`, each read from `listener.name.<name>.ssl.*`
 * first, then `ssl.*`, then the default (Kafka's listener prefix). Store files are read here, so
 * a missing file or unusable PEM fails at startup with a `ConfigError` naming the key.
 */
export function parseListenerSslConfig(
  properties: Readonly<Record<string, string>>,
  listenerName: string,
): TlsSettings {
  return parseSslSettings(properties, `listener.name.${listenerName.toLowerCase()}.`, listenerName);
}

/**
 * The `ssl.*` settings of a client with `security.protocol=SSL` (an admin client's
 * `--command-config`): the same keys, checks and defaults as a listener's, without the listener
 * prefix, and the keystore is optional, as in Kafka: it is the client certificate, needed only
 * by a listener that asks for one.
 */
export function parseClientSslConfig(properties: Readonly<Record<string, string>>): TlsSettings {
  return parseSslSettings(properties, '', undefined);
}

/** `prefix` is tried before each `ssl.*` key; a keystore is required when `keystoreOwner` (a listener) is named. */
function parseSslSettings(
  properties: Readonly<Record<string, string>>,
  prefix: string,
  keystoreOwner: string | undefined,
): TlsSettings {
  const keyOf = (key: string): string => (properties[prefix + key] === undefined ? key : prefix + key);
  const text = (key: string): string | undefined =>
    properties[prefix + key] ?? properties[key] ?? SSL_CONFIG_DEFAULTS[key];
  const nonEmpty = (key: string): string | undefined => {
    const value = text(key)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const fail = (key: string, expected: string): never => {
    throw new ConfigError(keyOf(key), text(key), expected);
  };

  for (const key of ['ssl.keystore.type', 'ssl.truststore.type']) {
    if (nonEmpty(key)?.toUpperCase() !== SUPPORTED_STORE_TYPE) {
      fail(key, `${SUPPORTED_STORE_TYPE} is the supported type (Node reads no JKS or PKCS12 stores)`);
    }
  }
  // Kafka refuses store passwords with PEM too: only the key itself may be encrypted.
  if (nonEmpty('ssl.keystore.password') !== undefined)
    fail('ssl.keystore.password', 'not used with PEM; set ssl.key.password for an encrypted key');
  if (nonEmpty('ssl.truststore.password') !== undefined)
    fail('ssl.truststore.password', 'not used with PEM (certificates are not encrypted)');

  const keystore = readKeystore(nonEmpty, fail);
  const trustedCertificatesPem = readTruststore(nonEmpty, fail);
  const clientAuth = (nonEmpty('ssl.client.auth') ?? '').toLowerCase();
  if (!CLIENT_AUTH_VALUES.includes(clientAuth as SslClientAuth))
    fail('ssl.client.auth', `expected one of ${CLIENT_AUTH_VALUES.join(', ')}`);
  const identification = (text('ssl.endpoint.identification.algorithm') ?? '').trim().toLowerCase();
  if (identification !== 'https' && identification !== '')
    fail('ssl.endpoint.identification.algorithm', "expected https or '' (no host name check)");
  const protocols = parseList(text('ssl.enabled.protocols') ?? '');
  if (protocols.length === 0 || protocols.some((protocol) => !PROTOCOL_VALUES.includes(protocol as never)))
    fail('ssl.enabled.protocols', `expected a list of ${PROTOCOL_VALUES.join(', ')}`);
  if (!SSL_PROTOCOL_VALUES.includes(nonEmpty('ssl.protocol') ?? ''))
    fail('ssl.protocol', `expected one of ${SSL_PROTOCOL_VALUES.join(', ')}`);

  const password = text('ssl.key.password');
  const settings: TlsSettings = {
    ...keystore.settings,
    ...(password === undefined || password === '' ? {} : { privateKeyPassword: password }),
    ...(trustedCertificatesPem === undefined ? {} : { trustedCertificatesPem }),
    clientAuth: clientAuth as SslClientAuth,
    endpointIdentificationAlgorithm: identification as 'https' | '',
    enabledProtocols: protocols as TlsProtocolVersion[],
  };
  try {
    TlsContext.create(settings);
  } catch (err) {
    if (!(err instanceof InvalidTlsConfigError)) throw err;
    const key =
      err.setting === 'privateKeyPassword'
        ? 'ssl.key.password'
        : err.setting === 'trustedCertificatesPem'
          ? (keystore.trustKey ?? 'ssl.truststore.location')
          : err.setting === 'enabledProtocols'
            ? 'ssl.enabled.protocols'
            : err.setting === 'privateKeyPem'
              ? keystore.keyKey
              : keystore.chainKey;
    throw new ConfigError(keyOf(key), key === 'ssl.key.password' ? '[hidden]' : text(key), err.message);
  }
  if (keystoreOwner !== undefined && settings.privateKeyPem === undefined) {
    fail(
      'ssl.keystore.location',
      `listener ${keystoreOwner} uses SSL: set ssl.keystore.location, or ssl.keystore.key with ssl.keystore.certificate.chain`,
    );
  }
  return settings;
}

type Reader = (key: string) => string | undefined;
type Failure = (key: string, expected: string) => never;

interface Keystore {
  readonly settings: Pick<TlsSettings, 'privateKeyPem' | 'certificateChainPem'>;
  /** The keys the key and the chain came from, to name in errors. */
  readonly keyKey: string;
  readonly chainKey: string;
  readonly trustKey: string | undefined;
}

function readKeystore(nonEmpty: Reader, fail: Failure): Keystore {
  const location = nonEmpty('ssl.keystore.location');
  const inlineKey = nonEmpty('ssl.keystore.key');
  const inlineChain = nonEmpty('ssl.keystore.certificate.chain');
  const trustKey =
    nonEmpty('ssl.truststore.certificates') === undefined ? undefined : 'ssl.truststore.certificates';
  if (location !== undefined) {
    if (inlineKey !== undefined || inlineChain !== undefined)
      fail(
        'ssl.keystore.location',
        'set either ssl.keystore.location or ssl.keystore.key with ssl.keystore.certificate.chain, not both',
      );
    const pem = readPemFile('ssl.keystore.location', location, fail);
    const key = PRIVATE_KEY_PATTERN.exec(pem)?.[0];
    const chain = pem.match(CERTIFICATE_PATTERN);
    if (key === undefined || chain === null)
      fail('ssl.keystore.location', 'expected a PEM file holding a private key and its certificate chain');
    return {
      settings: { privateKeyPem: key as string, certificateChainPem: (chain as string[]).join('\n') },
      keyKey: 'ssl.keystore.location',
      chainKey: 'ssl.keystore.location',
      trustKey,
    };
  }
  if ((inlineKey === undefined) !== (inlineChain === undefined)) {
    fail(
      inlineKey === undefined ? 'ssl.keystore.key' : 'ssl.keystore.certificate.chain',
      'ssl.keystore.key and ssl.keystore.certificate.chain go together',
    );
  }
  return {
    settings:
      inlineKey === undefined ? {} : { privateKeyPem: inlineKey, certificateChainPem: inlineChain as string },
    keyKey: 'ssl.keystore.key',
    chainKey: 'ssl.keystore.certificate.chain',
    trustKey,
  };
}

function readTruststore(nonEmpty: Reader, fail: Failure): string | undefined {
  const location = nonEmpty('ssl.truststore.location');
  const inline = nonEmpty('ssl.truststore.certificates');
  if (location !== undefined && inline !== undefined)
    fail(
      'ssl.truststore.location',
      'set either ssl.truststore.location or ssl.truststore.certificates, not both',
    );
  return location === undefined ? inline : readPemFile('ssl.truststore.location', location, fail);
}

function readPemFile(key: string, path: string, fail: Failure): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return fail(
      key,
      `expected a readable PEM file (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
