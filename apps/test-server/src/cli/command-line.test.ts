import { describe, expect, it } from 'vitest';
import { parseCommandLine, usageText } from './command-line.js';

const required = ['--config', 'config/kraft.properties', '--replica-directory-id', 'b8tRS7h4TJ2Vt43Dp85v2A'];

describe('parseCommandLine', () => {
  it('applies Kafka defaults for throughput and record size', () => {
    const result = parseCommandLine(required);
    expect(result.kind).toBe('run');
    if (result.kind !== 'run') return;
    expect(result.options.configPath).toBe('config/kraft.properties');
    expect(result.options.replicaDirectoryId?.toString()).toBe('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(result.options.throughputRecordsPerSecond).toBe(5000);
    expect(result.options.recordSizeBytes).toBe(256);
  });

  it('reads --throughput and --record-size, also in the --name=value form', () => {
    const result = parseCommandLine([...required, '--throughput=20000', '--record-size', '1024']);
    expect(result.kind === 'run' && result.options.throughputRecordsPerSecond).toBe(20000);
    expect(result.kind === 'run' && result.options.recordSizeBytes).toBe(1024);
  });

  it('reads --history-file, which needs room for the 16-byte record tag', () => {
    const result = parseCommandLine([...required, '--history-file', 'history.jsonl', '--record-size', '16']);
    expect(result.kind === 'run' && result.options.historyFile).toBe('history.jsonl');
    expect(parseCommandLine(required)).not.toHaveProperty('options.historyFile');
    const tooSmall = parseCommandLine([...required, '--history-file', 'h', '--record-size', '15']);
    expect(tooSmall.kind === 'usage-error' && tooSmall.message).toContain('at least 16 bytes');
  });

  it("runs Kafka's raft workload unless --workload metadata is given, with an optional --seed", () => {
    const defaults = parseCommandLine(required);
    expect(defaults.kind === 'run' && defaults.options.workload).toBe('raft');
    expect(defaults).not.toHaveProperty('options.seed');
    const metadata = parseCommandLine([...required, '--workload', 'metadata', '--seed', '42']);
    expect(metadata.kind === 'run' && metadata.options.workload).toBe('metadata');
    expect(metadata.kind === 'run' && metadata.options.seed).toBe(42);
    expect(defaults).not.toHaveProperty('options.printLatencyHistogram');
    const histogram = parseCommandLine([...required, '--print-latency-histogram']);
    expect(histogram.kind === 'run' && histogram.options.printLatencyHistogram).toBe(true);
    const withHistory = parseCommandLine([...required, '--workload', 'metadata', '--history-file', 'h']);
    expect(withHistory.kind === 'usage-error' && withHistory.message).toContain('no record tags');
  });

  it('takes the directory id from the log dir when --replica-directory-id is omitted, and reads --require-formatted', () => {
    const result = parseCommandLine(['--config', 'x.properties']);
    expect(result.kind).toBe('run');
    expect(result).not.toHaveProperty('options.replicaDirectoryId');
    expect(result).not.toHaveProperty('options.requireFormatted');
    const required = parseCommandLine(['--config', 'x.properties', '--require-formatted']);
    expect(required.kind === 'run' && required.options.requireFormatted).toBe(true);
    expect(usageText()).toContain('--require-formatted');
  });

  it('reads --metrics-port, 0 included; absent, the option is left out', () => {
    const result = parseCommandLine([...required, '--metrics-port', '9404']);
    expect(result.kind === 'run' && result.options.metricsPort).toBe(9404);
    const anyPort = parseCommandLine([...required, '--metrics-port=0']);
    expect(anyPort.kind === 'run' && anyPort.options.metricsPort).toBe(0);
    expect(parseCommandLine(required)).not.toHaveProperty('options.metricsPort');
    const tooHigh = parseCommandLine([...required, '--metrics-port', '65536']);
    expect(tooHigh.kind === 'usage-error' && tooHigh.message).toContain(
      '--metrics-port must be an integer in [0, 65535]',
    );
  });

  it('returns the help text for --help', () => {
    const result = parseCommandLine(['--help']);
    expect(result.kind).toBe('help');
    expect(result.kind === 'help' && result.text).toContain('--replica-directory-id <uuid>');
    expect(usageText()).toContain('--record-size <bytes>');
  });

  it.each([
    [['--replica-directory-id', 'b8tRS7h4TJ2Vt43Dp85v2A'], "'--config <file>' not specified"],
    [['--config', 'x', '--replica-directory-id', 'not-a-uuid'], '22-character'],
    [['--config', 'x', '--replica-directory-id', 'AAAAAAAAAAAAAAAAAAAAAA'], 'reserved directory id'],
    [[...required, '--throughput', '0'], '--throughput must be an integer in [1,'],
    [[...required, '--throughput', '12.5'], "got '12.5'"],
    [[...required, '--record-size', '0'], '--record-size must be an integer in [1,'],
    [[...required, '--record-size'], 'argument missing'],
    [[...required, '--bogus'], "unknown option '--bogus'"],
    [[...required, '--workload', 'etcd'], "one of raft, metadata is expected, got 'etcd'"],
    [[...required, '--seed', '-1'], '--seed must be an integer in [0,'],
    [[...required, 'extra'], 'too many arguments'],
  ])('rejects %j with a usage error', (args, expected) => {
    const result = parseCommandLine(args);
    expect(result.kind).toBe('usage-error');
    if (result.kind !== 'usage-error') return;
    expect(result.message).toContain(expected);
    expect(result.usage).toContain('Usage: test-kraft-server-start.sh');
  });
});
