import { KRaftError, type Logger } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import { reportHelpOrUsageError } from '../cli/command-line.js';
import {
  PERFORMANCE_TEST_PARTITION_INDEX,
  PERFORMANCE_TEST_TOPIC_ID,
  PERFORMANCE_TEST_TOPIC_NAME,
  TEST_SERVER_CLUSTER_ID,
} from '../performance-test-topic.js';
import { type AdminClientConfig, loadAdminClientConfig } from './admin-client-config.js';
import { type ControllerRegistration, readControllerRegistration } from './controller-registration.js';
import { formatEndpoint, formatQuorumStatus, formatReplicationTable } from './describe-output.js';
import type { QuorumPartition } from './leader-probe.js';
import {
  type MetadataQuorumOptions,
  PROGRAM_NAME,
  parseMetadataQuorumCommandLine,
  type QuorumCommand,
} from './metadata-quorum-command-line.js';
import { QuorumAdminClient } from './quorum-admin-client.js';

export interface MetadataQuorumBindings {
  readonly stdoutLine: (line: string) => void;
  readonly stderrText: (text: string) => void;
  /** This machine's wall clock (`--human-readable`); `Date.now` by default. */
  readonly wallClockMs?: () => number;
  /** The admin client's transport log; silent by default. */
  readonly logger?: Logger;
  /** Where add-controller reads `meta.properties`; the real disk by default. */
  readonly fileSystem?: FileSystem;
}

/** Exit code when the command fails: no leader found, a refusal, an unusable config. Kafka's tool exits 1 too. */
export const COMMAND_FAILED_EXIT_CODE = 1;

/** The test server's one partition, which its DescribeQuorum answers for (and no other). */
const TEST_SERVER_PARTITION: QuorumPartition = {
  topicName: PERFORMANCE_TEST_TOPIC_NAME,
  topicId: PERFORMANCE_TEST_TOPIC_ID,
  partitionIndex: PERFORMANCE_TEST_PARTITION_INDEX,
};

/**
 * `kraft-metadata-quorum.sh --bootstrap-controller host:port <command>`: runs one command of
 * Kafka's `kafka-metadata-quorum.sh` against a quorum of test servers and returns the exit code:
 * 0 on success, 1 when the command fails (the reason on stderr, one line), 2 on a bad command line.
 */
export async function runMetadataQuorum(
  argv: readonly string[],
  bindings: MetadataQuorumBindings,
): Promise<number> {
  const commandLine = parseMetadataQuorumCommandLine(argv);
  if (commandLine.kind !== 'run') return reportHelpOrUsageError(commandLine, bindings);
  try {
    for (const line of await runCommand(commandLine.options, bindings)) bindings.stdoutLine(line);
    return 0;
  } catch (error) {
    // Every failure the tool foresees is typed; anything else is a bug and keeps its stack.
    if (!KRaftError.isInstance(error)) throw error;
    bindings.stderrText(`${PROGRAM_NAME}: ${error.message}`);
    return COMMAND_FAILED_EXIT_CODE;
  }
}

async function runCommand(
  options: MetadataQuorumOptions,
  bindings: MetadataQuorumBindings,
): Promise<string[]> {
  const { command } = options;
  // Kafka's tool reads one file for both: the admin client's settings and, for add-controller, the controller's.
  const configPath =
    options.commandConfigPath ??
    (command.kind === 'add-controller' ? command.controllerConfigPath : undefined);
  const config = loadAdminClientConfig(configPath, options.commandTimeoutMs);
  if (command.kind === 'add-controller') {
    const registration = readControllerRegistration(config.properties, bindings.fileSystem);
    if (!command.dryRun)
      await withClient(options, config, bindings, (client) => client.addRaftVoter(registration));
    return [addedLine(registration, command.dryRun)];
  }
  if (command.kind === 'remove-controller') {
    if (!command.dryRun) {
      await withClient(options, config, bindings, (client) =>
        client.removeRaftVoter(command.controllerId, command.directoryId),
      );
    }
    return [removedLine(command)];
  }
  const { value: info } = await withClient(options, config, bindings, (client) => client.describeQuorum());
  if (command.kind === 'describe-status') return formatQuorumStatus(TEST_SERVER_CLUSTER_ID, info);
  return formatReplicationTable(info, {
    humanReadable: command.humanReadable,
    wallClockMs: bindings.wallClockMs ?? Date.now,
  });
}

async function withClient<T>(
  options: MetadataQuorumOptions,
  config: AdminClientConfig,
  bindings: MetadataQuorumBindings,
  call: (client: QuorumAdminClient) => Promise<T>,
): Promise<T> {
  const client = new QuorumAdminClient({
    bootstrapControllers: options.bootstrapControllers,
    partition: TEST_SERVER_PARTITION,
    requestTimeoutMs: config.requestTimeoutMs,
    commandTimeoutMs: config.commandTimeoutMs,
    ...(config.tls === undefined ? {} : { tls: config.tls }),
    ...(bindings.logger === undefined ? {} : { logger: bindings.logger }),
  });
  try {
    return await call(client);
  } finally {
    client.close();
  }
}

/** Kafka's line: `Added controller 5 with directory id … and endpoints: CONTROLLER://host:9093, …`. */
function addedLine(registration: ControllerRegistration, dryRun: boolean): string {
  const endpoints = registration.endpoints.map(formatEndpoint).join(', ');
  return `${dryRun ? 'DRY RUN of adding' : 'Added'} controller ${registration.controllerId} with directory id ${registration.directoryId} and endpoints: ${endpoints}`;
}

/** Kafka's line, with its two spaces before `KRaft` (`"Removed " + " KRaft controller"`), kept for scripts that match it. */
function removedLine(command: Extract<QuorumCommand, { kind: 'remove-controller' }>): string {
  const verb = command.dryRun ? 'DRY RUN of removing ' : 'Removed ';
  return `${verb} KRaft controller ${command.controllerId} with directory id ${command.directoryId}`;
}
