import { KRaftError, Uuid } from '@kraft/protocol';
import { type FileSystem, NodeFileSystem } from '@kraft/records';
import { USAGE_EXIT_CODE } from '../cli/command-line.js';
import { loadServerConfig } from '../config/load-server-config.js';
import { PERFORMANCE_TEST_TOPIC_PARTITION } from '../performance-test-topic.js';
import { KAFKA_METADATA_PARTITION_DIRECTORY } from './bootstrap-checkpoint.js';
import { applyFormat, planFormat } from './format-storage.js';
import { parseStorageCommandLine, type StorageCommand } from './storage-command-line.js';
import { storageInfo } from './storage-info.js';

export interface StorageToolBindings {
  readonly stdoutLine: (line: string) => void;
  readonly stderrText: (text: string) => void;
  /** Real disk unless a test says otherwise. */
  readonly fileSystem?: FileSystem;
  /** The format time (the checkpoint's timestamps, meta.properties' date line). */
  readonly nowMs?: () => number;
  /** Directory ids for `--standalone` and a static quorum's node; random unless a test says otherwise. */
  readonly newDirectoryId?: () => Uuid;
}

/** Exit code when the tool refuses (a formatted dir, a flag the config forbids) or fails (IO, a bad config). */
export const REFUSED_EXIT_CODE = 1;

/**
 * `kraft-storage.sh format | info | random-uuid`: runs the command and returns the exit code: 0
 * done, 1 refused or failed (the reason on stderr, nothing written), 2 a bad command line.
 */
export function runStorageTool(argv: readonly string[], bindings: StorageToolBindings): number {
  const commandLine = parseStorageCommandLine(argv);
  if (commandLine.kind === 'help') {
    bindings.stdoutLine(commandLine.text.trimEnd());
    return 0;
  }
  if (commandLine.kind === 'usage-error') {
    bindings.stderrText(`${commandLine.message}\n\n${commandLine.usage}`);
    return USAGE_EXIT_CODE;
  }
  try {
    return runCommand(commandLine.command, bindings);
  } catch (error) {
    // Every refusal and every operational failure below is typed; anything else is a bug and crashes.
    if (!KRaftError.isInstance(error)) throw error;
    bindings.stderrText(`kraft-storage: ${error.message}`);
    return REFUSED_EXIT_CODE;
  }
}

function runCommand(command: StorageCommand, bindings: StorageToolBindings): number {
  if (command.kind === 'random-uuid') {
    bindings.stdoutLine(Uuid.randomUuid().toString());
    return 0;
  }
  const fileSystem = bindings.fileSystem ?? new NodeFileSystem();
  // The server's own loader: a bad file is the ConfigError the server would report.
  const { config } = loadServerConfig(command.configPath);
  if (command.kind === 'info') {
    const info = storageInfo(config, fileSystem, PERFORMANCE_TEST_TOPIC_PARTITION);
    for (const line of info.lines) bindings.stdoutLine(line);
    return info.exitCode;
  }
  const decision = planFormat(config, command, {
    fileSystem,
    partitionDirectoryName: PERFORMANCE_TEST_TOPIC_PARTITION,
    ...(bindings.newDirectoryId === undefined ? {} : { newDirectoryId: bindings.newDirectoryId }),
  });
  if (decision.kind === 'already-formatted') {
    bindings.stdoutLine('All of the log directories are already formatted.');
    return 0;
  }
  const { plan } = decision;
  bindings.stdoutLine(
    `Formatting ${plan.directoryType} ${plan.directory} with kraft.version ${plan.kraftVersion}.`,
  );
  const result = applyFormat(plan, fileSystem, (bindings.nowMs ?? Date.now)());
  if (result.checkpointPath !== undefined) {
    bindings.stdoutLine(
      `Wrote the bootstrap checkpoint ${result.checkpointPath} (Kafka's controllers keep theirs in ${KAFKA_METADATA_PARTITION_DIRECTORY}).`,
    );
  }
  return 0;
}
