import { describe, expect, it } from 'vitest';
import { parsePerfCommandLine } from './perf-command-line.js';

describe('parsePerfCommandLine', () => {
  it('gives each scenario its defaults', () => {
    const metadata = parsePerfCommandLine(['metadata']);
    expect(metadata.kind === 'run' && metadata.options).toMatchObject({
      scenario: 'metadata',
      nodeCount: 3,
      durationMs: 20_000,
      throughputRecordsPerSecond: 2_000,
      snapshotThresholdBytes: 65_536,
      outputDirectory: undefined,
      keepDirectory: false,
    });
    const kafka = parsePerfCommandLine([
      'kafka',
      '--throughput',
      '30000',
      '--record-size=1024',
      '--linger',
      '0',
    ]);
    expect(kafka.kind === 'run' && kafka.options).toMatchObject({
      scenario: 'kafka',
      throughputRecordsPerSecond: 30_000,
      recordSizeBytes: 1024,
      lingerMs: 0,
      durationMs: 30_000,
    });
  });

  it('gives raft-node its own defaults (100 B values, 10 trials, 2,000 proposals after 200, 16 proposers) and reads its options', () => {
    const defaults = parsePerfCommandLine(['raft-node']);
    expect(defaults.kind === 'run' && defaults.options).toMatchObject({
      scenario: 'raft-node',
      nodeCount: 3,
      recordSizeBytes: 100,
      lingerMs: 25,
      trials: 10,
      proposals: 2_000,
      warmupProposals: 200,
      proposers: 16,
    });
    const set = parsePerfCommandLine([
      'raft-node',
      '--proposals',
      '20',
      '--warmup-proposals',
      '0',
      '--proposers',
      '4',
      '--trials',
      '1',
      '--linger',
      '0',
    ]);
    expect(set.kind === 'run' && set.options).toMatchObject({
      proposals: 20,
      warmupProposals: 0,
      proposers: 4,
      trials: 1,
      lingerMs: 0,
    });
    expect(parsePerfCommandLine(['raft-node', '--proposers', '0']).kind).toBe('usage-error');
    const failover = parsePerfCommandLine(['failover']);
    expect(failover.kind === 'run' && failover.options).toMatchObject({ trials: 3, recordSizeBytes: 256 });
  });

  it('reads the failover trials', () => {
    const failover = parsePerfCommandLine(['failover', '--trials', '5']);
    expect(failover.kind === 'run' && failover.options).toMatchObject({ scenario: 'failover', trials: 5 });
  });

  it('reads the sweep grid, the failover signal and the report directory', () => {
    const sweep = parsePerfCommandLine(['sweep', '--throughputs', '1000, 4000', '--record-sizes', '64']);
    expect(sweep.kind === 'run' && sweep.options).toMatchObject({
      scenario: 'sweep',
      throughputs: [1000, 4000],
      recordSizes: [64],
      durationMs: 5_000,
      warmupMs: 2_000,
    });
    const failover = parsePerfCommandLine(['failover', '--signal', 'SIGTERM']);
    expect(failover.kind === 'run' && failover.options.signal).toBe('TERM');
    const openLoop = parsePerfCommandLine(['open-loop']);
    expect(openLoop.kind === 'run' && openLoop.options.throughputRecordsPerSecond).toBe(400_000);
    expect(parsePerfCommandLine(['report', '/tmp/results'])).toEqual({
      kind: 'report',
      directory: '/tmp/results',
    });
  });

  it('reads the restart log size and signal (TERM by default, --kill for kill -9) and the catch-up defaults', () => {
    const restart = parsePerfCommandLine(['restart']);
    expect(restart.kind === 'run' && restart.options).toMatchObject({
      scenario: 'restart',
      logSizeBytes: 256 * 1024 * 1024,
      signal: 'TERM',
      throughputRecordsPerSecond: 5_000,
    });
    const killed = parsePerfCommandLine(['restart', '--kill', '--log-size', '2048']);
    expect(killed.kind === 'run' && killed.options).toMatchObject({
      signal: 'KILL',
      logSizeBytes: 2048 * 1024 * 1024,
    });
    const failover = parsePerfCommandLine(['failover']);
    expect(failover.kind === 'run' && failover.options.signal).toBe('KILL');
    const catchUp = parsePerfCommandLine(['catch-up']);
    expect(catchUp.kind === 'run' && catchUp.options).toMatchObject({
      scenario: 'catch-up',
      throughputRecordsPerSecond: 2_000,
      durationMs: 10_000,
      warmupMs: 10_000,
    });
  });

  it.each([
    [['restart', '--kill', '--signal', 'TERM'], '--kill and --signal exclude each other'],
    [['restart', '--log-size', '0'], '--log-size must be an integer in [1,'],
    [['report'], 'report takes one results directory'],
    [['failover', '--signal', 'HUP'], '--signal must be one of KILL, TERM'],
    [['sweep', '--throughputs', '1,x'], "got 'x'"],
    [
      ['sweep', '--throughputs', Array.from({ length: 65 }, (_, index) => index + 1).join(',')],
      'at most 64 points',
    ],
    [['failover', '--trials', '0'], '--trials must be an integer in [1,'],
    [[], 'got none'],
    [['etcd'], "got 'etcd'"],
    [['kafka', 'metadata'], "got 'kafka metadata'"],
    [['kafka', '--nodes', '2'], '--nodes must be 1, 3 or 5'],
    [['kafka', '--duration', '0'], '--duration must be an integer in [1,'],
    [['kafka', '--throughput', '1e6'], "got '1e6'"],
    [['kafka', '--bogus'], "Unknown option '--bogus'"],
  ])('refuses %j with the usage', (args, expected) => {
    const command = parsePerfCommandLine(args);
    expect(command.kind).toBe('usage-error');
    expect(command.kind === 'usage-error' && command.text).toContain(expected);
    expect(command.kind === 'usage-error' && command.text).toContain('Usage: pnpm perf <scenario>');
  });

  it('prints the usage for --help', () => {
    const command = parsePerfCommandLine(['--help']);
    expect(command.kind === 'help' && command.text).toContain('--snapshot-bytes');
  });
});
