import { KRaftError } from './kraft-error.js';

/** Writing a field at a version that cannot carry it, or using a version an API lacks. */
export class UnsupportedVersionError extends KRaftError {
  constructor(message: string) {
    super('UNSUPPORTED_VERSION', message);
  }
}
