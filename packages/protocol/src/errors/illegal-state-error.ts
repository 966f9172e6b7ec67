import { KRaftError } from './kraft-error.js';

/** A broken invariant: a programmer error. The node must stop rather than continue. */
export class IllegalStateError extends KRaftError {
  constructor(message: string) {
    super('ILLEGAL_STATE', message);
  }
}

/**
 * Asserts `condition`; the message is built only on failure so hot paths pay nothing for it.
 */
export function invariant(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new IllegalStateError(message());
}
