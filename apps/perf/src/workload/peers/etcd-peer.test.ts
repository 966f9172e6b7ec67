import { describe, expect, it } from 'vitest';
import { etcdLaunches } from './etcd-peer.js';
import { zooKeeperConfig } from './zookeeper-peer.js';

describe('peer command lines', () => {
  it('etcd: each member on its own loopback ports, all three in the initial cluster, a fresh cluster', () => {
    const launches = etcdLaunches('/usr/bin/etcd', ['/d1', '/d2', '/d3'], [11, 12, 13], [21, 22, 23]);
    expect(launches).toHaveLength(3);
    const second = launches[1]?.args ?? [];
    const value = (flag: string) => second[second.indexOf(flag) + 1];
    expect(value('--name')).toBe('m2');
    expect(value('--data-dir')).toBe('/d2');
    expect(value('--listen-client-urls')).toBe('http://127.0.0.1:12');
    expect(value('--listen-peer-urls')).toBe('http://127.0.0.1:22');
    expect(value('--initial-cluster')).toBe(
      'm1=http://127.0.0.1:21,m2=http://127.0.0.1:22,m3=http://127.0.0.1:23',
    );
    expect(value('--initial-cluster-state')).toBe('new');
  });

  it('ZooKeeper: its client port on loopback, the three servers, no admin server, fsync left on', () => {
    const config = zooKeeperConfig(3, '/z3', { client: [1, 2, 3], quorum: [4, 5, 6], election: [7, 8, 9] });
    const lines = config.split('\n');
    expect(lines).toContain('dataDir=/z3');
    expect(lines).toContain('clientPort=3');
    expect(lines).toContain('clientPortAddress=127.0.0.1');
    expect(lines).toContain('admin.enableServer=false');
    expect(lines.filter((line) => line.startsWith('server.'))).toEqual([
      'server.1=127.0.0.1:4:7',
      'server.2=127.0.0.1:5:8',
      'server.3=127.0.0.1:6:9',
    ]);
    expect(config).not.toContain('forceSync');
  });
});
