import { KRaftError } from '@kraft/protocol';

/**
 * A log dir the test server cannot run yet: its bootstrap checkpoint starts the log at
 * kraft.version 1 (KIP-853 dynamic voters), and the server runs static quorums (kraft.version 0)
 * only. Raised at start, before the log is opened; the checkpoint is never ignored.
 */
export class UnsupportedKRaftVersionError extends KRaftError {
  readonly path: string;
  readonly kraftVersion: number;

  constructor(path: string, kraftVersion: number, voterIds: readonly number[]) {
    const voters = voterIds.length === 0 ? 'no voters' : `voters ${voterIds.join(', ')}`;
    super(
      'UNSUPPORTED_KRAFT_VERSION',
      `${path} is a kraft.version ${kraftVersion} bootstrap checkpoint (dynamic quorum, ${voters}): ` +
        'this server runs static quorums only (kraft.version 0, voters from controller.quorum.voters), ' +
        'so it cannot start on this log dir yet. Format the dir again without --standalone or ' +
        '--initial-controllers, with controller.quorum.voters in the config',
    );
    this.path = path;
    this.kraftVersion = kraftVersion;
  }

  static isUnsupportedKRaftVersionError(value: unknown): value is UnsupportedKRaftVersionError {
    return KRaftError.isInstance(value) && value.code === 'UNSUPPORTED_KRAFT_VERSION';
  }
}
