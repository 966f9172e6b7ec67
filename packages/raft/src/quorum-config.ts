import { checkInteger, checkKnownKeys, checkOptionsObject } from '@kraft/protocol';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';

/** `controller.quorum.*` settings (Kafka's `QuorumConfig`), with Kafka's defaults. */
export interface QuorumConfig {
  /** `controller.quorum.election.timeout.ms`: base T of the randomized [T, 2T) election timeout. */
  readonly electionTimeoutMs: number;
  /** `controller.quorum.election.backoff.max.ms`: cap of the EndQuorumEpoch successor backoff. */
  readonly electionBackoffMaxMs: number;
  /** `controller.quorum.fetch.timeout.ms`: follower → Prospective; leader check-quorum at 1.5×. */
  readonly fetchTimeoutMs: number;
  /** `controller.quorum.append.linger.ms`: how long the leader gathers writes into one batch. */
  readonly appendLingerMs: number;
  /** `controller.quorum.request.timeout.ms`. */
  readonly requestTimeoutMs: number;
  /** `controller.quorum.retry.backoff.ms`. */
  readonly retryBackoffMs: number;
  /** `controller.quorum.fetch.max.bytes` (at least one batch is always returned). */
  readonly fetchMaxBytes: number;
  /** `controller.quorum.fetch.snapshot.max.bytes`: FetchSnapshot chunk size. */
  readonly fetchSnapshotMaxBytes: number;
  /** Fetch `MaxWaitMs` the follower asks for (Kafka's MAX_FETCH_WAIT_MS, 500). */
  readonly fetchMaxWaitMs: number;
  /** How often the log's retention (`maybeClean`) runs: Kafka's snapshot cleaner, 60 s. */
  readonly logCleanIntervalMs: number;
}

/** Kafka's default `controller.quorum.*` values (frozen); override fields with a spread. */
export const DEFAULT_QUORUM_CONFIG: QuorumConfig = Object.freeze({
  electionTimeoutMs: 1000,
  electionBackoffMaxMs: 1000,
  fetchTimeoutMs: 2000,
  appendLingerMs: 25,
  requestTimeoutMs: 2000,
  retryBackoffMs: 20,
  fetchMaxBytes: 1024 * 1024,
  fetchSnapshotMaxBytes: 1024 * 1024,
  fetchMaxWaitMs: 500,
  logCleanIntervalMs: 60_000,
});

/** Fills defaults and rejects values Kafka's ConfigDef would reject. */
export function resolveQuorumConfig(overrides: Partial<QuorumConfig> = {}): QuorumConfig {
  checkOptionsObject('quorum config', overrides);
  // A misspelt key (electionTimeoutMS) would otherwise leave its default in force unnoticed.
  checkKnownKeys('quorum config', overrides, Object.keys(DEFAULT_QUORUM_CONFIG));
  const config: QuorumConfig = { ...DEFAULT_QUORUM_CONFIG, ...overrides };
  for (const [name, value] of Object.entries(config)) checkInteger(name, value, { minimum: 0 });
  if (config.fetchMaxBytes < 1 || config.fetchSnapshotMaxBytes < 1) {
    throw new InvalidConfigurationError('fetchMaxBytes and fetchSnapshotMaxBytes must be at least 1');
  }
  return config;
}
