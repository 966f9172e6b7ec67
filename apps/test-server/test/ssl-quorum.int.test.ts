import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TlsContext } from '@kraft/transport-tcp';
import { afterEach, describe, expect, it } from 'vitest';
import { describeQuorum } from './support/describe-quorum.js';
import {
  expectIdenticalCommittedLogs,
  STARTUP_TIMEOUT_MS,
  stopAll,
  waitForCommittingLeader,
} from './support/quorum-checks.js';
import { TestCluster } from './support/test-cluster.js';

const FIXTURES = join(import.meta.dirname, '../../../packages/transport-tcp/test/fixtures/tls');
const fixture = (name: string): string => join(FIXTURES, name);

/**
 * The cluster's listener (named PLAINTEXT by TestCluster) mapped to SSL, with mutual TLS: every
 * node presents the server certificate (SANs 127.0.0.1 and localhost) as listener and as client.
 */
const SSL_PROPERTIES = [
  'listener.security.protocol.map=PLAINTEXT:SSL',
  `ssl.keystore.location=${fixture('server-keystore-encrypted.pem')}`,
  'ssl.key.password=kraft-test-password',
  `listener.name.plaintext.ssl.truststore.location=${fixture('ca.pem')}`,
  'ssl.client.auth=required',
].join('\n');

let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

describe('test-kraft-server over SSL (real processes on 127.0.0.1)', () => {
  it('three nodes on mutual TLS elect a leader, commit and agree byte for byte', async () => {
    cluster = await TestCluster.create(3, SSL_PROPERTIES);
    const testCluster = cluster;
    const nodes = [1, 2, 3].map((nodeId) => testCluster.start(nodeId, ['--throughput', '2000']));
    const { node: leader, stats } = await waitForCommittingLeader(nodes, 1000);
    for (const follower of nodes.filter((node) => node !== leader)) {
      await follower.waitForStats(
        (line) => line.role === 'Follower' && line.epoch === stats.epoch && (line.highWatermark ?? 0) > 1000,
        STARTUP_TIMEOUT_MS,
        'a follower of the same epoch',
      );
    }
    const leaderId = leader.nodeId as number;
    const clientTls = TlsContext.create({
      privateKeyPem: readFileSync(fixture('client-key.pem'), 'utf8'),
      certificateChainPem: readFileSync(fixture('client.pem'), 'utf8'),
      trustedCertificatesPem: readFileSync(fixture('ca.pem'), 'utf8'),
    });
    const describe = await describeQuorum(
      '127.0.0.1',
      testCluster.ports[leaderId - 1] as number,
      5000,
      clientTls,
    );
    expect(describe.errorCode).toBe(0);
    expect(describe.topics[0]?.partitions[0]?.leaderId).toBe(leaderId);
    // A client without a certificate is refused by ssl.client.auth=required, and nothing breaks.
    const refused = await describeQuorum(
      '127.0.0.1',
      testCluster.ports[leaderId - 1] as number,
      5000,
      TlsContext.create({ trustedCertificatesPem: readFileSync(fixture('ca.pem'), 'utf8') }),
    );
    expect(refused.errorCode).toBe(8);

    await stopAll(nodes);
    const finalHighWatermark = Math.min(...nodes.map((node) => node.latestStats()?.highWatermark ?? 0));
    expect(finalHighWatermark).toBeGreaterThan(1000);
    expectIdenticalCommittedLogs(testCluster, [1, 2, 3], finalHighWatermark);
    // The refusal is logged by the leader's listener; the quorum's own connections never failed a handshake.
    const handshakeFailures = nodes.flatMap((node) =>
      node.stderrLines.filter((line) => line.includes('TLS handshake failed')),
    );
    expect(handshakeFailures).toHaveLength(1);
    expect(leader.stderrLines.some((line) => line.includes('TLS handshake failed, closing connection'))).toBe(
      true,
    );
  });

  it('refuses a JKS keystore at startup with exit 1 naming the key', async () => {
    cluster = await TestCluster.create(1, `${SSL_PROPERTIES}\nssl.keystore.type=JKS`);
    const node = cluster.start(1);
    expect(await node.exited).toEqual({ code: 1, signal: null });
    expect(node.stderrLines.join('\n')).toContain(
      "invalid value 'JKS' for configuration ssl.keystore.type: PEM is the supported type",
    );
  });
});
