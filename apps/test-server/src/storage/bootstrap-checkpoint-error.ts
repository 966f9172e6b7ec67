import { KRaftError } from '@kraft/protocol';

/**
 * A bootstrap checkpoint (`00000000000000000000-0000000000.checkpoint`) whose bytes are not a
 * snapshot as Kafka's formatter writes it: a bad batch, records out of place, or no footer.
 */
export class BootstrapCheckpointError extends KRaftError {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('CORRUPT_BOOTSTRAP_CHECKPOINT', `${path}: ${reason}`, options);
    this.path = path;
    this.reason = reason;
  }

  static isBootstrapCheckpointError(value: unknown): value is BootstrapCheckpointError {
    return KRaftError.isInstance(value) && value.code === 'CORRUPT_BOOTSTRAP_CHECKPOINT';
  }
}
