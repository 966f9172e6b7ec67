import { KRaftError, Uuid } from '@kraft/protocol';
import { type HostAndPort, parseHostAndPort } from '@kraft/transport-tcp';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { expandOptionAbbreviations } from './option-abbreviations.js';

/** The subcommand to run, with its options checked as Kafka's `MetadataQuorumCommand` checks them. */
export type QuorumCommand =
  | { readonly kind: 'describe-status' }
  | { readonly kind: 'describe-replication'; readonly humanReadable: boolean }
  | {
      readonly kind: 'add-controller';
      /** The properties of the controller to add (Kafka: `--command-config`). */
      readonly controllerConfigPath: string;
      readonly dryRun: boolean;
    }
  | {
      readonly kind: 'remove-controller';
      readonly controllerId: number;
      readonly directoryId: Uuid;
      readonly dryRun: boolean;
    };

export interface MetadataQuorumOptions {
  /** `--bootstrap-controller`: where to start looking for the quorum leader, in the order given. */
  readonly bootstrapControllers: readonly HostAndPort[];
  /** `--command-config`: admin client properties (`security.protocol`, `ssl.*`, timeouts). */
  readonly commandConfigPath?: string;
  /** `--command-timeout-ms`: the whole command's deadline; else the command config's, else the default. */
  readonly commandTimeoutMs?: number;
  readonly command: QuorumCommand;
}

export type MetadataQuorumCommandLine =
  | { readonly kind: 'run'; readonly options: MetadataQuorumOptions }
  /** `--help` (of the tool or of a subcommand): print `text` to stdout and exit 0. */
  | { readonly kind: 'help'; readonly text: string }
  /** A missing or bad option: print `message` and `usage` to stderr and exit 2. */
  | { readonly kind: 'usage-error'; readonly message: string; readonly usage: string };

export const PROGRAM_NAME = 'kraft-metadata-quorum.sh';

/** More bootstrap controllers than any quorum has voters (Kafka allows at most a few dozen voters). */
export const MAX_BOOTSTRAP_CONTROLLERS = 64;

const INT32_MAX = 2 ** 31 - 1;

function bootstrapControllers(text: string): HostAndPort[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new InvalidArgumentError('expected host:port[,host:port...], got nothing');
  if (entries.length > MAX_BOOTSTRAP_CONTROLLERS)
    throw new InvalidArgumentError(`at most ${MAX_BOOTSTRAP_CONTROLLERS} controllers, got ${entries.length}`);
  const unique = new Map<string, HostAndPort>();
  for (const entry of entries) {
    let endpoint: HostAndPort;
    try {
      endpoint = parseHostAndPort(entry, '--bootstrap-controller');
    } catch (error) {
      throw new InvalidArgumentError(KRaftError.isInstance(error) ? error.message : String(error));
    }
    // An empty host means "every interface" to a listener; a client must name one.
    if (endpoint.host === '' || endpoint.port === 0)
      throw new InvalidArgumentError(`expected host:port with a host and a port above 0, got "${entry}"`);
    unique.set(`${endpoint.host}:${endpoint.port}`, endpoint);
  }
  return [...unique.values()];
}

function positiveInt32(name: string): (text: string) => number {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < 1 || value > INT32_MAX)
      throw new InvalidArgumentError(`${name} must be an integer in [1, ${INT32_MAX}], got '${text}'`);
    return value;
  };
}

/** argparse's `type(Integer.class)`: any 32-bit integer; the sign is checked later, with Kafka's message. */
function int32(text: string): number {
  const value = /^[+-]?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < -(2 ** 31) || value > INT32_MAX)
    throw new InvalidArgumentError(`could not convert '${text}' to a 32-bit integer`);
  return value;
}

interface Selection {
  name?: 'describe' | 'add-controller' | 'remove-controller';
  options?: Record<string, unknown>;
}

function buildProgram(selection: Selection, output: { out: string; err: string }): Command {
  const program = new Command(PROGRAM_NAME)
    .description(
      "Describes the KRaft quorum of test servers (Kafka's kafka-metadata-quorum.sh), and asks its leader to add or remove a controller",
    )
    .option(
      '--bootstrap-controller <host:port,...>',
      'comma-separated host:port pairs of the controllers to connect to; the quorum leader is found from any of them',
      bootstrapControllers,
    )
    .addOption(new Option('--bootstrap-server <host:port,...>').hideHelp())
    .option(
      '--command-config <file>',
      'admin client properties (security.protocol, ssl.*, request.timeout.ms, default.api.timeout.ms); for add-controller, the config of the controller to add',
    )
    .option(
      '--command-timeout-ms <ms>',
      'deadline of the whole command, every retry included (default.api.timeout.ms; default 15000)',
      positiveInt32('--command-timeout-ms'),
    )
    .helpOption('-h, --help', 'print this help and exit')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => {
        output.out += text;
      },
      writeErr: (text) => {
        output.err += text;
      },
      outputError: () => {},
    });
  const select =
    (name: NonNullable<Selection['name']>) =>
    (options: Record<string, unknown>): void => {
      selection.name = name;
      selection.options = options;
    };
  program
    .command('describe')
    .description('Describe the metadata quorum info')
    .option(
      '--status',
      'A short summary of the quorum status and the other provides detailed information about the status of replication.',
    )
    .option('--replication', 'Detailed information about the status of replication')
    .option('--human-readable', 'Human-readable output')
    .allowExcessArguments(false)
    .action(select('describe'));
  program
    .command('add-controller')
    .description('Add a controller to the KRaft controller cluster')
    .option('--config <file>', 'the config of the controller to add (instead of --command-config)')
    .option('--dry-run', 'True if we should print what would be done, but not do it.')
    .allowExcessArguments(false)
    .action(select('add-controller'));
  program
    .command('remove-controller')
    .description('Remove a controller from the KRaft controller cluster')
    .requiredOption('-i, --controller-id <id>', 'The id of the controller to remove.', int32)
    .requiredOption('-d, --controller-directory-id <uuid>', 'The directory ID of the controller to remove.')
    .option('--dry-run', 'True if we should print what would be done, but not do it.')
    .allowExcessArguments(false)
    .action(select('remove-controller'));
  return program;
}

/**
 * Parses `argv` (the arguments after the script name) as Kafka's `kafka-metadata-quorum.sh`
 * does, with Kafka's checks and messages for the combinations of options; never exits.
 */
export function parseMetadataQuorumCommandLine(argv: readonly string[]): MetadataQuorumCommandLine {
  const selection: Selection = {};
  const output = { out: '', err: '' };
  const program = buildProgram(selection, output);
  const usage = program.helpInformation();
  const expanded = expandOptionAbbreviations(program, argv);
  if (expanded.kind === 'ambiguous') return { kind: 'usage-error', message: expanded.message, usage };
  try {
    program.parse([...expanded.argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || (error.code === 'commander.help' && error.exitCode === 0))
      return { kind: 'help', text: output.out };
    if (error.code === 'commander.help')
      return {
        kind: 'usage-error',
        message: 'error: a command is required: describe, add-controller or remove-controller',
        usage,
      };
    const subcommand = program.commands.find((command) => command.name() === selection.name);
    return { kind: 'usage-error', message: error.message, usage: subcommand?.helpInformation() ?? usage };
  }
  const globals = program.opts<{
    bootstrapController?: HostAndPort[];
    bootstrapServer?: string;
    commandConfig?: string;
    commandTimeoutMs?: number;
  }>();
  const fail = (message: string): MetadataQuorumCommandLine => ({ kind: 'usage-error', message, usage });
  if (globals.bootstrapServer !== undefined && globals.bootstrapController !== undefined)
    return fail('error: You cannot specify both --bootstrap-controller and --bootstrap-server.');
  if (globals.bootstrapServer !== undefined)
    return fail(
      "error: --bootstrap-server reaches the controllers through brokers (Kafka's tool), and the test server runs no broker: use --bootstrap-controller",
    );
  if (globals.bootstrapController === undefined)
    return fail('error: You must specify --bootstrap-controller.');
  const command = quorumCommand(selection, globals.commandConfig);
  if (typeof command === 'string') return fail(`error: ${command}`);
  return {
    kind: 'run',
    options: {
      bootstrapControllers: globals.bootstrapController,
      ...(globals.commandConfig === undefined ? {} : { commandConfigPath: globals.commandConfig }),
      ...(globals.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: globals.commandTimeoutMs }),
      command,
    },
  };
}

/** The subcommand with Kafka's checks (its `TerseException` messages), or the message of the first that fails. */
function quorumCommand(selection: Selection, commandConfig: string | undefined): QuorumCommand | string {
  const options = selection.options ?? {};
  if (selection.name === 'describe') {
    const { status, replication, humanReadable } = options as {
      status?: boolean;
      replication?: boolean;
      humanReadable?: boolean;
    };
    if (status === true && replication === true)
      return 'Only one of --status or --replication should be specified with describe sub-command';
    if (replication === true) return { kind: 'describe-replication', humanReadable: humanReadable === true };
    if (status === true) {
      if (humanReadable === true)
        return 'The option --human-readable is only supported along with --replication';
      return { kind: 'describe-status' };
    }
    return 'One of --status or --replication must be specified with describe sub-command';
  }
  if (selection.name === 'add-controller') {
    const { config, dryRun } = options as { config?: string; dryRun?: boolean };
    if (config !== undefined && commandConfig !== undefined && config !== commandConfig)
      return 'add-controller --config and --command-config name different files; give the controller config once';
    const controllerConfigPath = config ?? commandConfig;
    if (controllerConfigPath === undefined)
      return 'You must supply the configuration file of the controller you are adding when using add-controller.';
    return { kind: 'add-controller', controllerConfigPath, dryRun: dryRun === true };
  }
  if (selection.name !== 'remove-controller')
    return 'a command is required: describe, add-controller or remove-controller';
  const { controllerId, controllerDirectoryId, dryRun } = options as {
    controllerId: number;
    controllerDirectoryId: string;
    dryRun?: boolean;
  };
  if (controllerId < 0) return `Invalid negative --controller-id: ${controllerId}`;
  let directoryId: Uuid;
  try {
    directoryId = Uuid.fromString(controllerDirectoryId);
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    return `Failed to parse --controller-directory-id: ${error.message}`;
  }
  return { kind: 'remove-controller', controllerId, directoryId, dryRun: dryRun === true };
}
