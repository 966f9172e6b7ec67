import { appendFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrometheusFamily, parsePrometheusText, sampleValue } from './support/prometheus-text.js';
import { STARTUP_TIMEOUT_MS, stopAll, waitForCommittingLeader } from './support/quorum-checks.js';
import { TestCluster } from './support/test-cluster.js';
import type { TestNode } from './support/test-node.js';

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

const RAFT = 'kafka_server_raft_metrics_';

/** The address the node logged for its metrics endpoint (it was started with port 0). */
async function metricsAddress(node: TestNode): Promise<{ host: string; port: number }> {
  const line = await node.waitForLog(/"msg":"metrics endpoint listening"/, STARTUP_TIMEOUT_MS);
  const { host, port } = JSON.parse(line) as { host: string; port: number };
  return { host, port };
}

/** GET /metrics over HTTP; the body must parse as Prometheus text. */
async function scrape(address: { host: string; port: number }): Promise<Map<string, PrometheusFamily>> {
  const response = await fetch(`http://${address.host}:${address.port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  return parsePrometheusText(await response.text());
}

describe('the metrics endpoint (real processes on 127.0.0.1)', () => {
  it("three nodes, one opted in by --metrics-port and one by kraft.metrics.port, report Kafka's raft metrics", async () => {
    cluster = await TestCluster.create(3);
    // Node 3 opts in through its properties, the others on the command line.
    appendFileSync(cluster.configPath(3), '\nkraft.metrics.port=0\n');
    const testCluster = cluster;
    const nodes = new Map(
      [1, 2, 3].map((nodeId) => [
        nodeId,
        testCluster.start(nodeId, ['--throughput', '500', ...(nodeId === 3 ? [] : ['--metrics-port', '0'])]),
      ]),
    );
    const addresses = new Map<number, { host: string; port: number }>();
    for (const [nodeId, node] of nodes) addresses.set(nodeId, await metricsAddress(node));
    for (const address of addresses.values()) expect(address.host).toBe('127.0.0.1');
    expect(nodes.get(3)?.stderrLines.join('\n')).not.toContain(
      "'kraft.metrics.port' was supplied but is not used",
    );

    const { node: leader, stats } = await waitForCommittingLeader([...nodes.values()], 50);
    const leaderId = leader.nodeId as number;
    const leaderAddress = addresses.get(leaderId) as { host: string; port: number };
    const first = await scrape(leaderAddress);
    expect(sampleValue(first, `${RAFT}current_leader`)).toBe(leaderId);
    expect(sampleValue(first, `${RAFT}current_state`, { state: 'leader' })).toBe(1);
    expect(sampleValue(first, `${RAFT}current_vote`)).toBe(leaderId);
    const epoch = sampleValue(first, `${RAFT}current_epoch`);
    expect(epoch).toBeGreaterThanOrEqual(stats.epoch);
    expect(sampleValue(first, `${RAFT}number_of_voters`)).toBe(3);
    expect(sampleValue(first, `${RAFT}number_unknown_voter_connections`)).toBe(0);
    expect(sampleValue(first, `${RAFT}append_records_total`)).toBeGreaterThan(0);
    const firstHighWatermark = sampleValue(first, `${RAFT}high_watermark`);
    expect(firstHighWatermark).toBeGreaterThan(50);
    expect(sampleValue(first, `${RAFT}commit_latency_avg`)).toBeGreaterThanOrEqual(0);
    expect(sampleValue(first, `${RAFT}election_latency_max`)).toBeGreaterThanOrEqual(0);
    // Node's own process metrics sit beside the raft ones.
    expect(sampleValue(first, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(first.has('nodejs_eventloop_lag_seconds')).toBe(true);

    // The workload keeps committing: a later scrape sees a higher high watermark.
    await leader.waitForStats(
      (line) => (line.highWatermark ?? 0) > firstHighWatermark + 100,
      STARTUP_TIMEOUT_MS,
      'the high watermark to grow',
    );
    const second = await scrape(leaderAddress);
    expect(sampleValue(second, `${RAFT}high_watermark`)).toBeGreaterThan(firstHighWatermark);
    expect(sampleValue(second, `${RAFT}append_records_total`)).toBeGreaterThan(
      sampleValue(first, `${RAFT}append_records_total`),
    );

    let electionsStarted = 0;
    for (const [nodeId, address] of addresses) {
      const metrics = await scrape(address);
      electionsStarted += sampleValue(metrics, `${RAFT}elections_started_total`);
      if (nodeId === leaderId) continue;
      // Every follower knows the leader of the epoch and replicates from it.
      expect(sampleValue(metrics, `${RAFT}current_leader`)).toBe(leaderId);
      expect(sampleValue(metrics, `${RAFT}current_epoch`)).toBe(epoch);
      expect(sampleValue(metrics, `${RAFT}current_state`, { state: 'follower' })).toBe(1);
      expect(sampleValue(metrics, `${RAFT}fetch_records_total`)).toBeGreaterThan(0);
      expect(sampleValue(metrics, `${RAFT}append_records_total`)).toBe(0);
    }
    expect(electionsStarted).toBeGreaterThanOrEqual(1);

    const notFound = await fetch(`http://${leaderAddress.host}:${leaderAddress.port}/`);
    expect(notFound.status).toBe(404);
    await stopAll([...nodes.values()]);
    // Closed with the server.
    await expect(fetch(`http://${leaderAddress.host}:${leaderAddress.port}/metrics`)).rejects.toThrow();
  });
});
