import { KRaftError } from '@kraft/protocol';

/** A malformed `listeners`, `controller.listener.names`, `controller.quorum.voters` or bootstrap value. */
export class InvalidListenerConfigError extends KRaftError {
  constructor(message: string) {
    super('INVALID_LISTENER_CONFIG', message);
  }
}
