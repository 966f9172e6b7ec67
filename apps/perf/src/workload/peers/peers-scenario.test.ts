import { describe, expect, it } from 'vitest';
import { peersSummary, runPeersScenario } from './peers-scenario.js';

describe('runPeersScenario', () => {
  it('skips a peer that is not installed with its apt line, and that is no failure', async () => {
    const lines: string[] = [];
    const result = await runPeersScenario(
      {
        durationMs: 1_000,
        warmupMs: 0,
        throughputRecordsPerSecond: 100,
        recordSizeBytes: 64,
        keepDirectory: false,
        searchPath: '/nonexistent',
      },
      (line) => lines.push(line),
    );
    expect(lines).toEqual([
      'etcd is not installed: skipped (install it with `apt-get install etcd-server`)',
      'ZooKeeper is not installed: skipped (install it with `apt-get install zookeeper`)',
    ]);
    expect(result.passed).toBe(true);
    expect(result.runs.map((run) => run.figures)).toEqual([undefined, undefined]);
    expect(peersSummary(result).rows).toEqual([
      ['etcd', lines[0]],
      ['zookeeper', lines[1]],
    ]);
  });
});
