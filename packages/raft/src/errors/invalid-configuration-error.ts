/** A raft setting that cannot be used (a malformed `controller.quorum.voters` entry, a bad timeout): one class for all packages. */
export { InvalidConfigurationError } from '@kraft/protocol';
