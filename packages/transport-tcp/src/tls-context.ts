import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import {
  type ConnectionOptions,
  checkServerIdentity,
  createSecureContext,
  type SecureContextOptions,
  type TlsOptions,
} from 'node:tls';
import { InvalidTlsConfigError } from './errors/invalid-tls-config-error.js';

/** `ssl.client.auth`: whether a TLS listener asks for, or insists on, a client certificate. */
export type SslClientAuth = 'none' | 'requested' | 'required';

/** The protocol versions `ssl.enabled.protocols` may name (Node's OpenSSL speaks nothing older that Kafka enables). */
export type TlsProtocolVersion = 'TLSv1.2' | 'TLSv1.3';

/**
 * Kafka's `ssl.*` settings with the PEM material already read (Node has no JKS). The caller reads
 * files; this package only parses and uses what it is given.
 */
export interface TlsSettings {
  /** The private key of `ssl.keystore.location` or `ssl.keystore.key`, possibly encrypted. */
  readonly privateKeyPem?: string;
  /** `ssl.key.password`: decrypts an encrypted private key. */
  readonly privateKeyPassword?: string;
  /** The certificate chain of the keystore, leaf first (`ssl.keystore.certificate.chain`). */
  readonly certificateChainPem?: string;
  /** `ssl.truststore.location` / `ssl.truststore.certificates`; absent means Node's public CAs. */
  readonly trustedCertificatesPem?: string;
  /** `ssl.client.auth`; Kafka's default `none`. */
  readonly clientAuth?: SslClientAuth;
  /** `ssl.endpoint.identification.algorithm`: `https` (Kafka's default) checks the peer's name; `''` does not. */
  readonly endpointIdentificationAlgorithm?: 'https' | '';
  /** `ssl.enabled.protocols`; Kafka's default TLSv1.2 and TLSv1.3. */
  readonly enabledProtocols?: readonly TlsProtocolVersion[];
}

const PROTOCOL_ORDER: readonly TlsProtocolVersion[] = ['TLSv1.2', 'TLSv1.3'];
const CERTIFICATE_PATTERN = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** Skips the host-name check (`ssl.endpoint.identification.algorithm=`); the chain is still verified. */
const acceptAnyPeerName = (): undefined => undefined;

/**
 * Validated TLS material and the options built from it, once: a bad key or certificate fails
 * here, at startup, with a typed error, never at the first connection.
 */
export class TlsContext {
  readonly settings: TlsSettings;
  /**
   * The material as `tls` options. Passed as options rather than as a built `SecureContext`: a
   * `tls.Server` ignores `secureContext` for its certificate (the handshake fails with "no
   * suitable signature algorithm").
   */
  private readonly material: SecureContextOptions;
  private readonly hasKeystore: boolean;

  private constructor(settings: TlsSettings, material: SecureContextOptions) {
    this.settings = settings;
    this.material = material;
    this.hasKeystore = settings.privateKeyPem !== undefined;
  }

  /** Parses and cross-checks the material; throws `InvalidTlsConfigError` naming the bad setting. */
  static create(settings: TlsSettings): TlsContext {
    const { privateKeyPem, certificateChainPem, trustedCertificatesPem } = settings;
    if ((privateKeyPem === undefined) !== (certificateChainPem === undefined)) {
      throw new InvalidTlsConfigError(
        privateKeyPem === undefined ? 'privateKeyPem' : 'certificateChainPem',
        'a keystore needs both a private key and its certificate chain',
      );
    }
    if (privateKeyPem !== undefined && certificateChainPem !== undefined) {
      const key = parsePrivateKey(privateKeyPem, settings.privateKeyPassword);
      const chain = parseCertificates(certificateChainPem, 'certificateChainPem');
      if (!chain[0]!.checkPrivateKey(key)) {
        throw new InvalidTlsConfigError(
          'certificateChainPem',
          `the private key does not match the first certificate of the chain (${chain[0]!.subject})`,
        );
      }
    }
    if (trustedCertificatesPem !== undefined)
      parseCertificates(trustedCertificatesPem, 'trustedCertificatesPem');
    const protocols = settings.enabledProtocols ?? PROTOCOL_ORDER;
    const enabled = PROTOCOL_ORDER.filter((protocol) => protocols.includes(protocol));
    if (enabled.length === 0 || enabled.length !== new Set(protocols).size) {
      throw new InvalidTlsConfigError(
        'enabledProtocols',
        `expected a non-empty list of ${PROTOCOL_ORDER.join(', ')}, got ${protocols.join(',')}`,
      );
    }
    const material: SecureContextOptions = {
      ...(privateKeyPem === undefined ? {} : { key: privateKeyPem, cert: certificateChainPem }),
      ...(settings.privateKeyPassword === undefined ? {} : { passphrase: settings.privateKeyPassword }),
      ...(trustedCertificatesPem === undefined ? {} : { ca: trustedCertificatesPem }),
      minVersion: enabled[0]!,
      maxVersion: enabled[enabled.length - 1]!,
    };
    try {
      // What OpenSSL itself would refuse, refused now rather than at the first connection.
      createSecureContext(material);
      return new TlsContext(settings, material);
    } catch (err) {
      throw new InvalidTlsConfigError('certificateChainPem', `unusable TLS material: ${describe(err)}`, {
        cause: err,
      });
    }
  }

  /** Options for `tls.createServer`: a listener needs a keystore; `ssl.client.auth` decides the client certificate. */
  serverOptions(): TlsOptions {
    if (!this.hasKeystore) {
      throw new InvalidTlsConfigError(
        'privateKeyPem',
        'an SSL listener needs a keystore (a private key and its certificate chain)',
      );
    }
    const clientAuth = this.settings.clientAuth ?? 'none';
    return {
      ...this.material,
      requestCert: clientAuth !== 'none',
      rejectUnauthorized: clientAuth === 'required',
    };
  }

  /**
   * Options for `tls.connect` to `host`: the chain is always verified against the truststore;
   * the host name (or IP SAN) only under `https`. The keystore, when set, is the client certificate.
   */
  clientOptions(host: string): ConnectionOptions {
    const verifyName = (this.settings.endpointIdentificationAlgorithm ?? 'https') === 'https';
    return {
      ...this.material,
      rejectUnauthorized: true,
      // SNI carries DNS names only; an IP is still checked against the IP SANs through `host`.
      ...(isIP(host) === 0 && host !== '' ? { servername: host } : {}),
      checkServerIdentity: verifyName ? checkServerIdentity : acceptAnyPeerName,
    };
  }
}

function parsePrivateKey(pem: string, password: string | undefined): KeyObject {
  try {
    return createPrivateKey({
      key: pem,
      format: 'pem',
      ...(password === undefined ? {} : { passphrase: password }),
    });
  } catch (err) {
    const wrongPassword =
      password !== undefined && (err as { code?: unknown }).code === 'ERR_OSSL_BAD_DECRYPT';
    if (wrongPassword) {
      throw new InvalidTlsConfigError('privateKeyPassword', 'the password does not decrypt the private key', {
        cause: err,
      });
    }
    const hint = password === undefined ? ' (an encrypted key needs a password)' : '';
    throw new InvalidTlsConfigError(
      'privateKeyPem',
      `not a usable PEM private key${hint}: ${describe(err)}`,
      {
        cause: err,
      },
    );
  }
}

function parseCertificates(pem: string, setting: keyof TlsSettings): X509Certificate[] {
  const blocks = pem.match(CERTIFICATE_PATTERN) ?? [];
  if (blocks.length === 0) throw new InvalidTlsConfigError(setting, 'expected PEM certificates, found none');
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new InvalidTlsConfigError(setting, `certificate ${index + 1} does not parse: ${describe(err)}`, {
        cause: err,
      });
    }
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
