import { afterEach, describe, expect, it } from 'vitest';
import { repeatedKeys } from './support/json-line-keys.js';
import { STARTUP_TIMEOUT_MS } from './support/quorum-checks.js';
import { TestCluster } from './support/test-cluster.js';
import type { TestNode } from './support/test-node.js';

/** pino's numeric levels. */
const WARN_LEVEL = 40;
/** Long enough for several election rounds, each retrying both dead peers. */
const DEAD_PEERS_OBSERVED_MS = 5000;

interface LogRecord {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

/** Every stderr line is one JSON object (a stack trace would spill over lines) with no repeated key. */
function parseLogLines(node: TestNode): LogRecord[] {
  return node.stderrLines.map((line) => {
    expect(line.startsWith('{') && line.endsWith('}'), line).toBe(true);
    expect(repeatedKeys(line), line).toEqual([]);
    expect(line, 'no stack trace').not.toContain('"stack"');
    return JSON.parse(line) as LogRecord;
  });
}

/** The warnings and errors logged after the node was asked to stop. */
function warningsWhileStopping(records: readonly LogRecord[]): LogRecord[] {
  const stopIndex = records.findIndex((record) => record.msg === 'shutting down');
  expect(stopIndex).toBeGreaterThanOrEqual(0);
  return records.slice(stopIndex).filter((record) => record.level >= WARN_LEVEL);
}

describe('what an operator reads in the logs (real processes on 127.0.0.1)', () => {
  it('a node whose two peers are dead warns once per peer, on one line, and stops without a warning', async () => {
    cluster = await TestCluster.create(3, 'controller.quorum.election.timout.ms=500');
    const node = cluster.start(1);
    await node.waitForLog(/"msg":"listening"/, STARTUP_TIMEOUT_MS);
    await new Promise((resolve) => setTimeout(resolve, DEAD_PEERS_OBSERVED_MS));
    expect(await node.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    const records = parseLogLines(node);
    const warnings = records.filter((record) => record.level >= WARN_LEVEL);
    const typo = warnings.filter((record) => record['key'] === 'controller.quorum.election.timout.ms');
    expect(typo).toHaveLength(1);
    expect(typo[0]?.['didYouMean']).toBe('controller.quorum.election.timeout.ms');
    expect(typo[0]?.msg).toContain("did you mean 'controller.quorum.election.timeout.ms'?");
    const peerWarnings = warnings.filter((record) => record !== typo[0]);
    expect(peerWarnings.map((record) => [record['remoteNodeId'], record.msg, record['code']])).toEqual(
      expect.arrayContaining([
        [2, 'cannot connect', 'ECONNREFUSED'],
        [3, 'cannot connect', 'ECONNREFUSED'],
      ]),
    );
    expect(peerWarnings, JSON.stringify(peerWarnings)).toHaveLength(2);
    expect(warningsWhileStopping(records)).toEqual([]);
  });

  it('a whole quorum stopped at once with SIGTERM logs no warning on any node', async () => {
    cluster = await TestCluster.create(3);
    const nodes = [1, 2, 3].map((nodeId) => (cluster as TestCluster).start(nodeId, ['--throughput', '200']));
    await Promise.any(nodes.map((node) => node.waitForLog(/"msg":"became leader"/, STARTUP_TIMEOUT_MS)));
    await Promise.all(nodes.map((node) => node.waitForLog(/"msg":"connected"/, STARTUP_TIMEOUT_MS)));
    const exits = await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
    expect(exits).toEqual(nodes.map(() => ({ code: 0, signal: null })));
    for (const node of nodes) {
      const records = parseLogLines(node);
      expect(warningsWhileStopping(records), node.tail()).toEqual([]);
      expect(records.at(-1)?.msg).toBe('raft server stopped cleanly');
    }
  });
});
