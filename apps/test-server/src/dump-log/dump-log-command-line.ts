import { Command, CommanderError } from 'commander';

export type DumpFormat = 'text' | 'json';

export interface DumpLogOptions {
  readonly files: readonly string[];
  readonly format: DumpFormat;
}

export type DumpLogCommandLine =
  | { readonly kind: 'run'; readonly options: DumpLogOptions }
  /** `--help`: print `text` to stdout and exit 0. */
  | { readonly kind: 'help'; readonly text: string }
  /** A missing or bad option: print `message` and `usage` to stderr and exit 2. */
  | { readonly kind: 'usage-error'; readonly message: string; readonly usage: string };

const PROGRAM_NAME = 'kraft-dump-log.sh';

function buildCommand(): Command {
  return new Command(PROGRAM_NAME)
    .description(
      'Prints KRaft log segments (.log) and snapshots (.checkpoint) batch by batch, with their control and metadata records decoded',
    )
    .requiredOption('--files <files>', 'comma-separated list of .log and .checkpoint files to dump')
    .option(
      '--cluster-metadata-decoder',
      "decode records as cluster metadata (Kafka's flag; always on, since a KRaft log holds nothing else)",
    )
    .option('--json', 'one JSON object per batch, one per line, instead of text')
    .helpOption('-h, --help', 'print this usage')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
}

function splitFiles(list: string): string[] {
  return list
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '');
}

/** Parses `argv` (without node and the script) the way Kafka's DumpLogSegments reads its options. */
export function parseDumpLogCommandLine(argv: readonly string[]): DumpLogCommandLine {
  const command = buildCommand();
  const usage = command.helpInformation();
  try {
    command.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') {
      return { kind: 'help', text: usage };
    }
    return { kind: 'usage-error', message: error.message, usage };
  }
  const values = command.opts<{ files: string; json?: boolean }>();
  const files = splitFiles(values.files);
  if (files.length === 0) {
    return { kind: 'usage-error', message: 'error: --files names no file', usage };
  }
  return { kind: 'run', options: { files, format: values.json === true ? 'json' : 'text' } };
}
