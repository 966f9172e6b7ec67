// Three RaftNodes in one process on 127.0.0.1 port 0, speaking SSL to each other with mutual TLS.
// The certificates are transport-tcp's committed test fixtures (packages/transport-tcp/test/
// fixtures/tls, made once by its generate.sh): `server` and `client` are two leaf certificates of
// the test CA, both with the SAN IP:127.0.0.1 and both usable as server and as client;
// `untrusted` has the same SANs but another CA signed it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import type { Logger } from '@kraft/protocol';
import type { TlsSettings } from '@kraft/transport-tcp';
import { afterEach, describe, expect, it } from 'vitest';
import {
  lineRecordingLogger,
  type NodeOptionsFor,
  TestCluster,
  type TestMember,
} from './raft-node-cluster.test-support.js';

const TLS_FIXTURES_DIRECTORY = join(import.meta.dirname, '../../../transport-tcp/test/fixtures/tls');

function tlsFixture(name: string): string {
  return readFileSync(join(TLS_FIXTURES_DIRECTORY, name), 'utf8');
}

/**
 * A node's `ssl.*` material: its keystore (`certificate` and its key), the test CA as truststore,
 * and `ssl.client.auth=required`. Client authentication is what keeps a stranger out: TLS alone
 * only proves the listener's identity to whoever connects, so without it a node with any
 * certificate, or none, that trusts the CA could still fetch from the leader.
 */
function tlsSettings(certificate: 'server' | 'client' | 'untrusted'): TlsSettings {
  return {
    privateKeyPem: tlsFixture(`${certificate}-key.pem`),
    certificateChainPem: tlsFixture(`${certificate}.pem`),
    trustedCertificatesPem: tlsFixture('ca.pem'),
    clientAuth: 'required',
  };
}

/** The listener is named CONTROLLER (TestCluster's), so the map says it speaks SSL. */
function sslNode(certificate: 'server' | 'client' | 'untrusted', logger?: Logger) {
  return {
    listenerSecurityProtocolMap: { CONTROLLER: 'SSL' },
    tls: tlsSettings(certificate),
    ...(logger === undefined ? {} : { logger }),
  };
}

interface LogLine {
  readonly message: string | undefined;
  readonly fields: Record<string, unknown>;
}

/**
 * Keeps every line at debug and at warn or above with its fields (the transport reports
 * handshakes there); info is left out, where it logs a failed connect during shutdown.
 */
function fieldRecordingLogger(lines: LogLine[]): Logger {
  return lineRecordingLogger((level, fields, message) => {
    if (level !== 'info') lines.push({ message, fields: fields as Record<string, unknown> });
  });
}

/** The subject CN of the certificate the listener on `port` presents to a trusted client. */
function listenerCertificateName(port: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host: '127.0.0.1', port, ...clientOptions() }, () => {
      const name = socket.authorized ? String(socket.getPeerCertificate().subject.CN) : undefined;
      socket.destroy();
      resolve(name);
    });
    socket.once('error', reject);
  });
}

function clientOptions() {
  const settings = tlsSettings('client');
  return {
    key: settings.privateKeyPem,
    cert: settings.certificateChainPem,
    ca: settings.trustedCertificatesPem,
  };
}

let cluster = new TestCluster();

afterEach(async () => {
  await cluster.closeAll();
  cluster = new TestCluster();
});

function startCluster(optionsFor: NodeOptionsFor): Promise<void> {
  cluster = new TestCluster(optionsFor);
  return cluster.start(3);
}

function entriesOf(member: TestMember): [string, string][] {
  return [...member.stateMachine.entries];
}

describe('RaftNode over SSL with mutual TLS', () => {
  it('commits on all three voters, through a change of leader and a restart of the old one', async () => {
    // Two different certificates of the same CA: the quorum needs no shared key, only a shared CA.
    await startCluster((nodeId) => sslNode(nodeId === 2 ? 'client' : 'server'));
    const names = await Promise.all(
      cluster.members.map((member) => listenerCertificateName(member.node.endpoints()[0]?.port as number)),
    );
    expect(names).toEqual(['localhost', 'kraft test client', 'localhost']);
    const first = await cluster.leader();
    const before = await first.node.propose([{ key: 'before', value: 'failover' }]);
    const afterFirst = [['before', 'failover']];
    await expect
      .poll(() => cluster.members.map(entriesOf), { timeout: 10_000 })
      .toEqual([afterFirst, afterFirst, afterFirst]);

    await first.node.close();
    const remaining = cluster.members.filter((member) => member !== first);
    const second = await cluster.leader(15_000, remaining);
    const after = await second.node.propose([{ key: 'after', value: 'failover' }]);
    expect(after.epoch).toBeGreaterThan(before.epoch);
    expect(after.offset).toBeGreaterThan(before.offset);
    const both = [
      ['before', 'failover'],
      ['after', 'failover'],
    ];
    await expect.poll(() => remaining.map(entriesOf), { timeout: 10_000 }).toEqual([both, both]);

    // The old leader comes back on its port and directory and catches up over TLS too.
    const restarted = await cluster.restart(first);
    await expect.poll(() => [...restarted.entries], { timeout: 15_000 }).toEqual(both);
    expect(first.node.status().leaderId).toBe(second.nodeId);
  });

  it('keeps out a voter whose certificate another CA signed: it never fetches, and the others commit', async () => {
    const trustedLog: LogLine[] = [];
    const strangerLog: LogLine[] = [];
    const stranger = 3;
    await startCluster((nodeId) =>
      nodeId === stranger
        ? sslNode('untrusted', fieldRecordingLogger(strangerLog))
        : sslNode('server', fieldRecordingLogger(trustedLog)),
    );
    const strangerMember = cluster.members.find((member) => member.nodeId === stranger) as TestMember;
    const trusted = cluster.members.filter((member) => member !== strangerMember);
    // Two of three voters are a majority: the trusted pair elects a leader and commits alone.
    const leader = await cluster.leader(15_000, trusted);
    await leader.node.propose([{ key: 'among', value: 'trusted' }]);
    await expect
      .poll(() => trusted.map(entriesOf), { timeout: 10_000 })
      .toEqual([[['among', 'trusted']], [['among', 'trusted']]]);

    // Both directions fail at the handshake: the trusted listeners refuse the stranger's client
    // certificate, and the trusted nodes refuse its listener's certificate when they connect.
    const refusedClients = () =>
      trustedLog.filter((line) => line.message === 'TLS handshake failed, closing connection').length;
    const refusedListener = () =>
      trustedLog.some(
        (line) =>
          line.message === 'cannot connect' &&
          line.fields['remoteNodeId'] === stranger &&
          line.fields['reason'] === 'TLS handshake failed',
      );
    const refusedSoFar = refusedClients();
    // Refused again after the value committed: the stranger keeps trying and keeps failing.
    await expect.poll(refusedClients, { timeout: 15_000 }).toBeGreaterThan(refusedSoFar);
    await expect.poll(refusedListener, { timeout: 15_000 }).toBe(true);
    // The stranger's own refusal is logged when its next connection attempt fails, which under
    // load can come after the trusted side's: wait for it as for theirs.
    await expect
      .poll(() => strangerLog.some((line) => line.message === 'cannot connect'), { timeout: 15_000 })
      .toBe(true);

    const strangerStatus = strangerMember.node.status();
    expect(strangerStatus.phase).toBe('running');
    expect(strangerStatus.leaderId).toBeUndefined();
    expect(strangerStatus.highWatermark).toBeUndefined();
    expect(strangerStatus.applied).toBeUndefined();
    expect(strangerStatus.logEndOffset).toBe(0);
    expect(entriesOf(strangerMember)).toEqual([]);
    // The stranger never reached the leader, so the leader never heard from it.
    const { voters } = (await cluster.leader(15_000, trusted)).node.status();
    expect(voters.find((voter) => voter.nodeId === stranger)).toMatchObject({
      logEndOffset: undefined,
      lag: undefined,
    });
  });
});
