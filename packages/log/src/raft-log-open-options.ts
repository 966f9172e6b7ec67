import {
  checkFunction,
  checkInstance,
  checkMethods,
  checkNonEmptyString,
  checkOptionsObject,
  InvalidConfigurationError,
  LOGGER_METHODS,
  Uuid,
} from '@kraft/protocol';
import { FILE_SYSTEM_METHODS } from '@kraft/records';
import { LogConfig } from './config/log-config.js';
import { LogDirectoryLock } from './files/log-directory-lock.js';
import { LOST_FLUSHED_DATA_POLICIES } from './raft-log-types.js';

const OWNER = 'RaftLog.open';
/** `<topic>-<partition>`: the partition directory's name. */
const TOPIC_PARTITION_PATTERN = /^[^/]+-\d+$/;

/**
 * Checks what a JavaScript caller can get wrong in `RaftLog.open`'s options, before the lock or
 * any file is touched: each failure names the option.
 */
export function checkRaftLogOpenOptions(options: unknown): void {
  checkOptionsObject(OWNER, options);
  const given = options as Record<string, unknown>;
  checkNonEmptyString(`${OWNER}: dir`, given['dir']);
  if (given['config'] !== undefined) {
    checkInstance(
      `${OWNER}: config`,
      given['config'],
      LogConfig,
      ' (new LogConfig({...}) or LogConfig.fromProperties)',
    );
  }
  if (given['fileSystem'] !== undefined)
    checkMethods(`${OWNER}: fileSystem`, given['fileSystem'], FILE_SYSTEM_METHODS);
  if (given['logger'] !== undefined) checkMethods(`${OWNER}: logger`, given['logger'], LOGGER_METHODS);
  if (given['topicPartition'] !== undefined) checkTopicPartition(given['topicPartition']);
  if (given['topicId'] !== undefined) checkInstance(`${OWNER}: topicId`, given['topicId'], Uuid);
  if (given['time'] !== undefined) checkFunction(`${OWNER}: time`, given['time']);
  if (given['lock'] !== undefined) checkInstance(`${OWNER}: lock`, given['lock'], LogDirectoryLock);
  const policy = given['lostFlushedData'];
  if (policy !== undefined && !(LOST_FLUSHED_DATA_POLICIES as readonly unknown[]).includes(policy)) {
    throw new InvalidConfigurationError(
      `${OWNER}: lostFlushedData must be one of ${LOST_FLUSHED_DATA_POLICIES.join(', ')}, got ${JSON.stringify(policy) ?? String(policy)}`,
    );
  }
}

function checkTopicPartition(value: unknown): void {
  const name = `${OWNER}: topicPartition`;
  checkNonEmptyString(name, value);
  if (!TOPIC_PARTITION_PATTERN.test(value as string)) {
    throw new InvalidConfigurationError(`${name} must be <topic>-<partition>, got '${String(value)}'`);
  }
}
