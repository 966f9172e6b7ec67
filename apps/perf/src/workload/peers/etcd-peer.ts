import { Etcd3 } from 'etcd3';
import { freePorts } from '../local-quorum.js';
import {
  findExecutable,
  PEER_HOST,
  PEER_MEMBERS,
  type PeerCluster,
  type PeerMemberLaunch,
} from './peer-cluster.js';
import type { PeerWriter } from './peer-workload.js';

/** Debian's etcd-server package installs `etcd` on PATH. */
export const ETCD_COMMAND = 'etcd';
export const ETCD_INSTALL = 'apt-get install etcd-server';

/** Each member's `etcd` command line: default fsync (etcd always syncs its WAL), loopback only. */
export function etcdLaunches(
  command: string,
  directories: readonly string[],
  clientPorts: readonly number[],
  peerPorts: readonly number[],
): PeerMemberLaunch[] {
  const initialCluster = peerPorts
    .map((port, index) => `m${index + 1}=http://${PEER_HOST}:${port}`)
    .join(',');
  return directories.map((directory, index) => ({
    command,
    args: [
      '--name',
      `m${index + 1}`,
      '--data-dir',
      directory,
      '--listen-client-urls',
      `http://${PEER_HOST}:${clientPorts[index]}`,
      '--advertise-client-urls',
      `http://${PEER_HOST}:${clientPorts[index]}`,
      '--listen-peer-urls',
      `http://${PEER_HOST}:${peerPorts[index]}`,
      '--initial-advertise-peer-urls',
      `http://${PEER_HOST}:${peerPorts[index]}`,
      '--initial-cluster',
      initialCluster,
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      'kraft-perf',
    ],
  }));
}

/** A started etcd cluster's writer: each record a put of its own key (a linearizable, quorum-committed write). */
export async function startEtcd(
  cluster: PeerCluster,
): Promise<{ writer: PeerWriter; ready: () => Promise<void>; close: () => void }> {
  const command = findExecutable(ETCD_COMMAND) as string;
  const ports = await freePorts(PEER_MEMBERS * 2);
  const clientPorts = ports.slice(0, PEER_MEMBERS);
  const peerPorts = ports.slice(PEER_MEMBERS);
  const directories = clientPorts.map((_, index) => `${cluster.memberDirectory(index + 1)}/data`);
  for (const [index, launch] of etcdLaunches(command, directories, clientPorts, peerPorts).entries()) {
    cluster.start(index + 1, launch);
  }
  const client = new Etcd3({ hosts: clientPorts.map((port) => `http://${PEER_HOST}:${port}`) });
  return {
    writer: {
      write: (sequence, value) =>
        client
          .put(`perf/${sequence}`)
          .value(value)
          .then(() => undefined),
    },
    ready: async () => {
      await client.put('perf/ready').value('1');
    },
    close: () => client.close(),
  };
}
