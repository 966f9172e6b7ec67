import type { Command, Option } from 'commander';

/** The command line with every unambiguous long-option prefix written out, or why it cannot be. */
export type ExpandedArguments =
  | { readonly kind: 'expanded'; readonly argv: readonly string[] }
  | { readonly kind: 'ambiguous'; readonly message: string };

/**
 * Kafka's tool parses with argparse4j, which accepts any unambiguous prefix of a long option
 * (`describe --re --hu` is `describe --replication --human-readable`, and Kafka's own test relies
 * on it); commander knows only whole names. This writes each prefix out against the options of
 * `program` and of the subcommand named so far, so commander then sees whole names; a prefix of
 * several options is refused as argparse refuses it. An exact name, a value, an unknown option
 * and everything after `--` pass through untouched.
 */
export function expandOptionAbbreviations(program: Command, argv: readonly string[]): ExpandedArguments {
  const expanded: string[] = [];
  let subcommand: Command | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--') {
      expanded.push(...argv.slice(index));
      break;
    }
    if (!argument.startsWith('--')) {
      subcommand ??= program.commands.find((command) => command.name() === argument);
      expanded.push(argument);
      continue;
    }
    const equals = argument.indexOf('=');
    const name = equals < 0 ? argument : argument.slice(0, equals);
    const options = [...(subcommand?.options ?? []), ...program.options];
    const resolved = resolveLongOption(options, name);
    if (resolved.kind === 'ambiguous') {
      return {
        kind: 'ambiguous',
        message: `error: ambiguous option: ${name} could match ${resolved.names.join(', ')}`,
      };
    }
    const option = resolved.kind === 'found' ? resolved.option : undefined;
    expanded.push(
      option === undefined ? argument : `${option.long}${equals < 0 ? '' : argument.slice(equals)}`,
    );
    // An option that takes a value consumes the next argument, which is never an option name.
    const takesValue = option !== undefined && (option.required || option.optional);
    if (takesValue && equals < 0 && index + 1 < argv.length) {
      index += 1;
      expanded.push(argv[index] as string);
    }
  }
  return { kind: 'expanded', argv: expanded };
}

type Resolution =
  | { readonly kind: 'found'; readonly option: Option }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'ambiguous'; readonly names: readonly string[] };

function resolveLongOption(options: readonly Option[], name: string): Resolution {
  const exact = options.find((option) => option.long === name);
  if (exact !== undefined) return { kind: 'found', option: exact };
  const matches = new Map<string, Option>();
  for (const option of options) {
    if (option.long?.startsWith(name) === true) matches.set(option.long, option);
  }
  if (matches.size === 1) return { kind: 'found', option: [...matches.values()][0] as Option };
  if (matches.size > 1) return { kind: 'ambiguous', names: [...matches.keys()] };
  return { kind: 'unknown' };
}
