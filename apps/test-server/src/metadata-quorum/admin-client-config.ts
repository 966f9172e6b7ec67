import { existsSync, readFileSync } from 'node:fs';
import { TlsContext } from '@kraft/transport-tcp';
import { parseInt32 } from '../config/config-definitions.js';
import { ConfigError } from '../config/config-error.js';
import { parseProperties } from '../config/load-server-config.js';
import { parseClientSslConfig } from '../config/ssl-config.js';
import { MetadataQuorumError } from './metadata-quorum-error.js';

/**
 * Per request: shorter than Kafka's admin default (30 s), because a controller answers these
 * requests at once; an unreachable one is then reported in seconds, and the retries still fit
 * in the command's deadline.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
/**
 * The whole command, every connection, retry and backoff included (Kafka's
 * `default.api.timeout.ms` is 60 s): three request timeouts, enough to outlast an election.
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000;

/** What the tool connects with: Kafka's admin client settings it reads from `--command-config`. */
export interface AdminClientConfig {
  /** `request.timeout.ms`: one request (connection set-up included) not answered in time fails. */
  readonly requestTimeoutMs: number;
  /** `--command-timeout-ms`, else `default.api.timeout.ms`: the whole command's deadline. */
  readonly commandTimeoutMs: number;
  /** Set when `security.protocol=SSL`: connections are TLS, verified and authenticated by this context. */
  readonly tls?: TlsContext;
  /** Every property of the file (add-controller reads the controller's settings from the same file, as Kafka's tool). */
  readonly properties: Readonly<Record<string, string>>;
}

/**
 * Reads `--command-config` (or nothing: the defaults) as Kafka's tool does. Only PLAINTEXT and SSL
 * are spoken (the test server's listeners), so a SASL protocol is refused here rather than failing
 * at the first connection; keys this tool does not read are ignored, as a controller's config for
 * add-controller holds many.
 */
export function loadAdminClientConfig(
  path: string | undefined,
  commandTimeoutOverrideMs: number | undefined,
): AdminClientConfig {
  const properties = path === undefined ? {} : readCommandConfig(path);
  const requestTimeoutMs = optionalInt32(properties, 'request.timeout.ms') ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const commandTimeoutMs =
    commandTimeoutOverrideMs ??
    optionalInt32(properties, 'default.api.timeout.ms') ??
    DEFAULT_COMMAND_TIMEOUT_MS;
  const protocol = (properties['security.protocol'] ?? 'PLAINTEXT').trim().toUpperCase();
  if (protocol !== 'PLAINTEXT' && protocol !== 'SSL') {
    throw new ConfigError(
      'security.protocol',
      properties['security.protocol'],
      'expected PLAINTEXT or SSL (the test server has no SASL listener)',
    );
  }
  const tls = protocol === 'SSL' ? TlsContext.create(parseClientSslConfig(properties)) : undefined;
  return { requestTimeoutMs, commandTimeoutMs, ...(tls === undefined ? {} : { tls }), properties };
}

function readCommandConfig(path: string): Record<string, string> {
  // Kafka's wording, typo included, so scripts matching it keep working.
  if (!existsSync(path)) throw new MetadataQuorumError(`Properties file ${path} does not exists!`);
  try {
    return parseProperties(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MetadataQuorumError(`Properties file ${path} cannot be read: ${reason}`, { cause: error });
  }
}

function optionalInt32(properties: Readonly<Record<string, string>>, key: string): number | undefined {
  const text = properties[key];
  return text === undefined ? undefined : parseInt32(key, text, { minimum: 1 });
}
