import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { freePorts } from '../local-quorum.js';
import { PEER_HOST, PEER_MEMBERS, type PeerCluster, type PeerMemberLaunch } from './peer-cluster.js';
import type { PeerWriter } from './peer-workload.js';

/** Debian's zookeeper package: the server jar (its manifest names the dependencies) and a JVM. */
export const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
export const ZOOKEEPER_INSTALL = 'apt-get install zookeeper';
const ZOOKEEPER_MAIN = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';
/** A small heap: three JVMs share two cores and the machine with everything else. */
const ZOOKEEPER_HEAP = '-Xmx256m';

export interface ZooKeeperPorts {
  readonly client: readonly number[];
  readonly quorum: readonly number[];
  readonly election: readonly number[];
}

/** One member's zoo.cfg: default fsync (forceSync yes), loopback only, no admin HTTP server. */
export function zooKeeperConfig(index: number, dataDirectory: string, ports: ZooKeeperPorts): string {
  return [
    'tickTime=2000',
    'initLimit=10',
    'syncLimit=5',
    `dataDir=${dataDirectory}`,
    `clientPort=${ports.client[index - 1]}`,
    `clientPortAddress=${PEER_HOST}`,
    'admin.enableServer=false',
    '4lw.commands.whitelist=',
    ...ports.quorum.map(
      (port, member) => `server.${member + 1}=${PEER_HOST}:${port}:${ports.election[member]}`,
    ),
    '',
  ].join('\n');
}

export function zooKeeperLaunch(java: string, directory: string, configPath: string): PeerMemberLaunch {
  return {
    command: java,
    args: [
      ZOOKEEPER_HEAP,
      `-Dzookeeper.log.dir=${directory}`,
      '-cp',
      ZOOKEEPER_JAR,
      ZOOKEEPER_MAIN,
      configPath,
    ],
  };
}

function connected(client: zookeeper.Client): Promise<void> {
  return new Promise((resolve) => {
    client.once('connected', () => resolve());
    client.connect();
  });
}

/** A started ZooKeeper ensemble's writer: each record a sequential znode under /perf (a quorum write). */
export async function startZooKeeper(
  cluster: PeerCluster,
  java: string,
): Promise<{ writer: PeerWriter; ready: () => Promise<void>; close: () => void }> {
  const ports = await freePorts(PEER_MEMBERS * 3);
  const split = {
    client: ports.slice(0, PEER_MEMBERS),
    quorum: ports.slice(PEER_MEMBERS, PEER_MEMBERS * 2),
    election: ports.slice(PEER_MEMBERS * 2),
  };
  for (let index = 1; index <= PEER_MEMBERS; index += 1) {
    const directory = cluster.memberDirectory(index);
    const dataDirectory = join(directory, 'data');
    writeFileSync(join(directory, 'zoo.cfg'), zooKeeperConfig(index, dataDirectory, split));
    mkdirSync(dataDirectory, { recursive: true });
    writeFileSync(join(dataDirectory, 'myid'), `${index}\n`);
    cluster.start(index, zooKeeperLaunch(java, directory, join(directory, 'zoo.cfg')));
  }
  const client = zookeeper.createClient(split.client.map((port) => `${PEER_HOST}:${port}`).join(','), {
    sessionTimeout: 30_000,
    retries: 0,
  });
  const create = (path: string, value: Buffer, mode: number) =>
    new Promise<void>((resolve, reject) =>
      client.create(path, value, mode, (error) => (error ? reject(error) : resolve())),
    );
  return {
    writer: {
      write: (_sequence, value) => create('/perf/r-', value, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL),
    },
    ready: async () => {
      await connected(client);
      await create('/perf', Buffer.alloc(0), zookeeper.CreateMode.PERSISTENT);
    },
    close: () => client.close(),
  };
}
