import { Command, CommanderError } from 'commander';
import { DynamicVoterError } from './dynamic-voter-error.js';
import { parseDynamicVoters } from './dynamic-voters.js';
import type { InitialControllers } from './format-storage.js';

/** A parsed `kraft-storage.sh` command (Kafka's `kafka-storage` subcommands this tool has). */
export type StorageCommand =
  | { readonly kind: 'random-uuid' }
  | { readonly kind: 'info'; readonly configPath: string }
  | {
      readonly kind: 'format';
      readonly configPath: string;
      readonly clusterId: string;
      readonly initialControllers: InitialControllers;
      readonly ignoreFormatted: boolean;
    };

export type StorageCommandLine =
  | { readonly kind: 'run'; readonly command: StorageCommand }
  /** `--help`: print `text` to stdout and exit 0. */
  | { readonly kind: 'help'; readonly text: string }
  /** A missing or bad option: print `message` and `usage` to stderr and exit 2. */
  | { readonly kind: 'usage-error'; readonly message: string; readonly usage: string };

const PROGRAM_NAME = 'kraft-storage.sh';
const COMMAND_NAMES = ['format', 'info', 'random-uuid'] as const;
type CommandName = (typeof COMMAND_NAMES)[number];

/** Kafka's three mutually exclusive quorum flags, as commander names their events. */
const QUORUM_FLAGS = {
  standalone: '--standalone',
  'initial-controllers': '--initial-controllers',
  'no-initial-controllers': '--no-initial-controllers',
} as const;
type QuorumFlag = keyof typeof QUORUM_FLAGS;

function quiet(command: Command): Command {
  return command
    .helpOption('-h, --help', 'print this usage')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
}

function configOption(command: Command): Command {
  return command.requiredOption(
    '-c, --config <file>',
    'the server properties file (the one the test server reads)',
  );
}

function buildFormatCommand(): Command {
  const command = configOption(
    new Command(`${PROGRAM_NAME} format`).description(
      "Formats the node's metadata log dir: meta.properties, and for a dynamic quorum the bootstrap checkpoint",
    ),
  )
    .requiredOption('-t, --cluster-id <id>', 'the cluster id to use (kraft-storage.sh random-uuid makes one)')
    .option('-g, --ignore-formatted', 'an already formatted dir is not an error: nothing is written, exit 0')
    .option(
      '-s, --standalone',
      'initialize this controller as a single-node dynamic quorum (kraft.version 1); controller.quorum.voters must not be set',
    )
    .option(
      '-I, --initial-controllers <list>',
      'initialize a dynamic quorum (kraft.version 1) of id@host:port:directoryId voters, comma-separated, ' +
        'this node among them; the same list formats every node',
    )
    .option(
      '-N, --no-initial-controllers',
      'initialize without a dynamic quorum (a node that joins later, or a static quorum: meta.properties only)',
    );
  return quiet(command);
}

function buildInfoCommand(): Command {
  return quiet(
    configOption(
      new Command(`${PROGRAM_NAME} info`).description(
        "Prints what the node's metadata log dir holds: meta.properties and the bootstrap checkpoint",
      ),
    ),
  );
}

function buildRandomUuidCommand(): Command {
  return quiet(
    new Command(`${PROGRAM_NAME} random-uuid`).description('Prints a random Kafka Uuid (a cluster id)'),
  );
}

const BUILDERS: Record<CommandName, () => Command> = {
  format: buildFormatCommand,
  info: buildInfoCommand,
  'random-uuid': buildRandomUuidCommand,
};

/** The top-level usage: the commands and what they do. */
export function storageUsageText(): string {
  const program = new Command(PROGRAM_NAME).description(
    "Kafka's kafka-storage for the test server's log dir: format it, print what it holds, make a cluster id",
  );
  program.usage('<command> [options]').helpCommand(false);
  for (const name of COMMAND_NAMES) {
    program.command(name).description(BUILDERS[name]().description());
  }
  program.helpOption('-h, --help', 'print this usage (and `<command> --help` for a command)');
  return program.helpInformation();
}

function isCommandName(text: string | undefined): text is CommandName {
  return (COMMAND_NAMES as readonly (string | undefined)[]).includes(text);
}

/** Parses `argv` (without node and the script): a command name, then that command's options. */
export function parseStorageCommandLine(argv: readonly string[]): StorageCommandLine {
  const [name, ...rest] = argv;
  if (name === '-h' || name === '--help') return { kind: 'help', text: storageUsageText() };
  if (!isCommandName(name)) {
    const message = name === undefined ? 'error: missing command' : `error: unknown command '${name}'`;
    return { kind: 'usage-error', message, usage: storageUsageText() };
  }
  const command = BUILDERS[name]();
  const usage = command.helpInformation();
  // commander pairs --initial-controllers with --no-initial-controllers (one value, the last
  // wins), so the flags given are recorded as they are parsed, for Kafka's exclusive-group check.
  const quorumFlagsGiven = new Set<QuorumFlag>();
  for (const flag of Object.keys(QUORUM_FLAGS) as QuorumFlag[]) {
    command.on(`option:${flag}`, () => quorumFlagsGiven.add(flag));
  }
  try {
    command.parse([...rest], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') {
      return { kind: 'help', text: usage };
    }
    return { kind: 'usage-error', message: error.message, usage };
  }
  if (name === 'random-uuid') return { kind: 'run', command: { kind: 'random-uuid' } };
  const values = command.opts<{
    config: string;
    clusterId?: string;
    ignoreFormatted?: boolean;
    standalone?: boolean;
    initialControllers?: string | false;
  }>();
  if (name === 'info') return { kind: 'run', command: { kind: 'info', configPath: values.config } };
  if (quorumFlagsGiven.size > 1) {
    const [first, second] = [...quorumFlagsGiven].map((flag) => QUORUM_FLAGS[flag]);
    return {
      kind: 'usage-error',
      message: `error: option '${second}' cannot be used with option '${first}'`,
      usage,
    };
  }
  let initialControllers: InitialControllers = { kind: 'none' };
  if (values.standalone === true) initialControllers = { kind: 'standalone' };
  else if (values.initialControllers === false) initialControllers = { kind: 'no-initial-controllers' };
  else if (typeof values.initialControllers === 'string') {
    try {
      initialControllers = {
        kind: 'initial-controllers',
        voters: parseDynamicVoters(values.initialControllers),
      };
    } catch (error) {
      if (!DynamicVoterError.isDynamicVoterError(error)) throw error;
      return {
        kind: 'usage-error',
        message: `error: option '--initial-controllers': ${error.message}`,
        usage,
      };
    }
  }
  return {
    kind: 'run',
    command: {
      kind: 'format',
      configPath: values.config,
      clusterId: values.clusterId as string,
      initialControllers,
      ignoreFormatted: values.ignoreFormatted === true,
    },
  };
}
