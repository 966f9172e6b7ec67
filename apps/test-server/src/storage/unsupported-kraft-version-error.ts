import { KRaftError } from '@kraft/protocol';

/**
 * A log dir whose bootstrap checkpoint the test server cannot start from: a kraft.version above
 * the highest it runs (1, KIP-853 dynamic voters), or a dynamic quorum's checkpoint in Kafka's
 * `__cluster_metadata-0`, a partition the server does not replicate. Raised at start, before the
 * log is opened; the checkpoint is never ignored.
 */
export class UnsupportedKRaftVersionError extends KRaftError {
  readonly path: string;
  readonly kraftVersion: number;

  constructor(path: string, kraftVersion: number, voterIds: readonly number[], reason: string) {
    const voters = voterIds.length === 0 ? 'no voters' : `voters ${voterIds.join(', ')}`;
    super(
      'UNSUPPORTED_KRAFT_VERSION',
      `${path} is a kraft.version ${kraftVersion} bootstrap checkpoint (${voters}): ${reason}`,
    );
    this.path = path;
    this.kraftVersion = kraftVersion;
  }

  static isUnsupportedKRaftVersionError(value: unknown): value is UnsupportedKRaftVersionError {
    return KRaftError.isInstance(value) && value.code === 'UNSUPPORTED_KRAFT_VERSION';
  }
}
