import { Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { parseMetadataQuorumCommandLine } from './metadata-quorum-command-line.js';

const BOOTSTRAP = ['--bootstrap-controller', 'localhost:9093'];

function run(...argv: string[]) {
  const result = parseMetadataQuorumCommandLine(argv);
  if (result.kind !== 'run') throw new Error(`expected a run, got ${JSON.stringify(result)}`);
  return result.options;
}

function usageError(...argv: string[]): string {
  const result = parseMetadataQuorumCommandLine(argv);
  if (result.kind !== 'usage-error') throw new Error(`expected a usage error, got ${JSON.stringify(result)}`);
  expect(result.usage).toContain('Usage: kraft-metadata-quorum.sh');
  return result.message;
}

describe('kraft-metadata-quorum command line', () => {
  it('reads describe --status with the bootstrap controllers in order, duplicates dropped', () => {
    const options = run('--bootstrap-controller', 'a:1, b:2,a:1,[::1]:3', 'describe', '--status');
    expect(options.bootstrapControllers).toEqual([
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
      { host: '::1', port: 3 },
    ]);
    expect(options.command).toEqual({ kind: 'describe-status' });
    expect(options.commandConfigPath).toBeUndefined();
    expect(options.commandTimeoutMs).toBeUndefined();
  });

  it('reads describe --replication --human-readable, also as the prefixes Kafka accepts (--re --hu)', () => {
    const expected = { kind: 'describe-replication', humanReadable: true };
    expect(run(...BOOTSTRAP, 'describe', '--replication', '--human-readable').command).toEqual(expected);
    expect(run(...BOOTSTRAP, 'describe', '--re', '--hu').command).toEqual(expected);
    expect(run('--bootstrap-c', 'localhost:9093', 'describe', '--stat').command).toEqual({
      kind: 'describe-status',
    });
    expect(run(...BOOTSTRAP, 'describe', '--replication').command).toEqual({
      kind: 'describe-replication',
      humanReadable: false,
    });
  });

  it('refuses an ambiguous prefix, as argparse does', () => {
    expect(usageError('--bootstrap', 'localhost:9093', 'describe', '--status')).toBe(
      'error: ambiguous option: --bootstrap could match --bootstrap-controller, --bootstrap-server',
    );
  });

  it("applies Kafka's describe checks with Kafka's messages", () => {
    expect(usageError(...BOOTSTRAP, 'describe')).toBe(
      'error: One of --status or --replication must be specified with describe sub-command',
    );
    expect(usageError(...BOOTSTRAP, 'describe', '--status', '--replication')).toBe(
      'error: Only one of --status or --replication should be specified with describe sub-command',
    );
    expect(usageError(...BOOTSTRAP, 'describe', '--status', '--human-readable')).toBe(
      'error: The option --human-readable is only supported along with --replication',
    );
  });

  it('requires --bootstrap-controller and explains why --bootstrap-server does not reach test servers', () => {
    expect(usageError('describe', '--status')).toBe('error: You must specify --bootstrap-controller.');
    expect(usageError('--bootstrap-server', 'localhost:9092', 'describe', '--status')).toMatch(
      /^error: --bootstrap-server reaches the controllers through brokers .* use --bootstrap-controller$/,
    );
    expect(usageError(...BOOTSTRAP, '--bootstrap-server', 'localhost:9092', 'describe', '--status')).toBe(
      'error: You cannot specify both --bootstrap-controller and --bootstrap-server.',
    );
  });

  it('refuses a bootstrap controller without a host or a port', () => {
    for (const value of ['localhost', ':9093', 'localhost:0', 'localhost:70000', ',']) {
      expect(usageError('--bootstrap-controller', value, 'describe', '--status')).toContain(
        "option '--bootstrap-controller <host:port,...>' argument",
      );
    }
  });

  it('reads --command-config and --command-timeout-ms, and refuses a timeout that is not a positive integer', () => {
    const options = run(
      ...BOOTSTRAP,
      '--command-config',
      'admin.properties',
      '--command-timeout-ms',
      '2500',
      'describe',
      '--status',
    );
    expect(options.commandConfigPath).toBe('admin.properties');
    expect(options.commandTimeoutMs).toBe(2500);
    for (const value of ['0', '-5', 'soon', '2147483648']) {
      expect(usageError(...BOOTSTRAP, '--command-timeout-ms', value, 'describe', '--status')).toContain(
        '--command-timeout-ms must be an integer in [1, 2147483647]',
      );
    }
  });

  it('reads remove-controller with its long and short options', () => {
    const directoryId = 'Nkij_D9XRiYKNb41SiJo7Q';
    const expected = {
      kind: 'remove-controller',
      controllerId: 2,
      directoryId: Uuid.fromString(directoryId),
      dryRun: false,
    };
    expect(
      run(...BOOTSTRAP, 'remove-controller', '--controller-id', '2', '--controller-directory-id', directoryId)
        .command,
    ).toEqual(expected);
    expect(run(...BOOTSTRAP, 'remove-controller', '-i', '2', '-d', directoryId, '--dry-run').command).toEqual(
      {
        ...expected,
        dryRun: true,
      },
    );
  });

  it("refuses remove-controller's bad values with Kafka's messages", () => {
    expect(usageError(...BOOTSTRAP, 'remove-controller', '-i', '-1', '-d', 'Nkij_D9XRiYKNb41SiJo7Q')).toBe(
      'error: Invalid negative --controller-id: -1',
    );
    expect(usageError(...BOOTSTRAP, 'remove-controller', '-i', '1', '-d', 'not-a-uuid')).toBe(
      "error: Failed to parse --controller-directory-id: uuid text 'not-a-uuid' does not decode to 16 bytes",
    );
    expect(
      usageError(...BOOTSTRAP, 'remove-controller', '-i', 'one', '-d', 'Nkij_D9XRiYKNb41SiJo7Q'),
    ).toContain("could not convert 'one' to a 32-bit integer");
    expect(usageError(...BOOTSTRAP, 'remove-controller', '-i', '1')).toContain(
      "required option '-d, --controller-directory-id <uuid>' not specified",
    );
  });

  it('reads add-controller with the controller config as --command-config (Kafka) or --config', () => {
    expect(run(...BOOTSTRAP, '--command-config', 'c.properties', 'add-controller').command).toEqual({
      kind: 'add-controller',
      controllerConfigPath: 'c.properties',
      dryRun: false,
    });
    expect(run(...BOOTSTRAP, 'add-controller', '--config', 'c.properties', '--dry-run').command).toEqual({
      kind: 'add-controller',
      controllerConfigPath: 'c.properties',
      dryRun: true,
    });
    expect(usageError(...BOOTSTRAP, 'add-controller')).toBe(
      'error: You must supply the configuration file of the controller you are adding when using add-controller.',
    );
    expect(
      usageError(
        ...BOOTSTRAP,
        '--command-config',
        'a.properties',
        'add-controller',
        '--config',
        'b.properties',
      ),
    ).toContain('name different files');
  });

  it('prints help for the tool and for a subcommand, and refuses a missing or unknown command', () => {
    const help = parseMetadataQuorumCommandLine(['--help']);
    expect(help.kind).toBe('help');
    expect(help.kind === 'help' ? help.text : '').toContain('--bootstrap-controller <host:port,...>');
    expect(help.kind === 'help' ? help.text : '').not.toContain('--bootstrap-server');
    const subcommandHelp = parseMetadataQuorumCommandLine(['describe', '-h']);
    expect(subcommandHelp.kind === 'help' ? subcommandHelp.text : '').toContain('--human-readable');
    expect(usageError(...BOOTSTRAP)).toBe(
      'error: a command is required: describe, add-controller or remove-controller',
    );
    expect(usageError(...BOOTSTRAP, 'list-voters')).toBe("error: unknown command 'list-voters'");
    expect(usageError(...BOOTSTRAP, 'describe', '--status', '--verbose')).toBe(
      "error: unknown option '--verbose'",
    );
  });
});
