/**
 * Runs a three-node quorum on 127.0.0.1 for a while and prints every node's stats lines: the
 * figures the README and the issue's closing note quote. Not a test (nothing is asserted).
 *
 *   pnpm --filter @kraft/test-server quorum --seconds 60 --throughput 5000 --record-size 256
 *
 * Extra `key=value` server properties go in KRAFT_EXTRA_PROPERTIES (`;`-separated).
 */
import { parseArgs } from 'node:util';
import { TestCluster } from './test-cluster.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    throughput: { type: 'string', default: '5000' },
    'record-size': { type: 'string', default: '256' },
  },
});
const seconds = Number(values.seconds);
const extraProperties = (process.env['KRAFT_EXTRA_PROPERTIES'] ?? '').split(';').join('\n');
const cluster = await TestCluster.create(3, extraProperties, 5000);
const args = ['--throughput', values.throughput, '--record-size', values['record-size']];
const nodes = [1, 2, 3].map((nodeId) => cluster.start(nodeId, args));
try {
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const statuses = await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
  for (const [index, status] of statuses.entries()) {
    if (status.code !== 0)
      process.stderr.write(`node ${index + 1} exited ${JSON.stringify(status)}:\n${nodes[index]?.tail()}\n`);
  }
  for (const node of nodes) {
    process.stdout.write(`node ${node.nodeId}:\n${node.stats.map((line) => `  ${line.line}`).join('\n')}\n`);
  }
} finally {
  await cluster.destroy();
}
