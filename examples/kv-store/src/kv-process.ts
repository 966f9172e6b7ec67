/**
 * One store process: a RaftNode and its HTTP server on 127.0.0.1. Started by `KvCluster` with an
 * IPC channel: it binds both ports (0 on the first start, the same ones on a restart), reports
 * them, and joins the quorum once the parent sends the voters and every node's HTTP URL.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { jsonSerde, RaftNode, type RaftNodeConfig } from '@kraft/raft';
import { createKvServer } from './kv-server.js';
import { type KvCommand, KvStateMachine } from './kv-state-machine.js';

/** What the parent sends once every node is bound. */
export interface StartMessage {
  readonly type: 'start';
  readonly voters: string;
  readonly httpUrls: Readonly<Record<string, string>>;
}

/** What this process reports once both ports are bound. */
export interface BoundMessage {
  readonly type: 'bound';
  readonly nodeId: number;
  readonly raftPort: number;
  readonly httpPort: number;
}

function requiredEnvironment(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`kv-process: ${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const nodeId = Number(requiredEnvironment('KV_NODE_ID'));
  const config = JSON.parse(process.env['KV_RAFT_CONFIG'] ?? '{}') as RaftNodeConfig;
  const stateMachine = new KvStateMachine();
  const node = await RaftNode.bind<KvCommand>({
    nodeId,
    directory: requiredEnvironment('KV_DIRECTORY'),
    listeners: `CONTROLLER://127.0.0.1:${process.env['KV_RAFT_PORT'] ?? '0'}`,
    clusterId: 'kv-store-example',
    serde: jsonSerde<KvCommand>(),
    stateMachine,
    config,
  });
  let httpUrls: Readonly<Record<string, string>> = {};
  const server = createKvServer({
    node,
    stateMachine,
    httpUrlOf: (id) => httpUrls[String(id)],
    staleLinearizableReads: process.env['KV_STALE_LINEARIZABLE_READS'] === '1',
  });
  server.listen(Number(process.env['KV_HTTP_PORT'] ?? '0'), '127.0.0.1');
  await once(server, 'listening');

  // SIGTERM and then the parent's exit both come here: the second call waits on the first.
  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      server.closeAllConnections();
      server.close();
      await node.close();
      process.exit(0);
    })();
    return stopping;
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  // The parent is gone (its IPC channel closed): nothing will stop this process otherwise.
  process.once('disconnect', shutdown);

  process.on('message', (message: StartMessage) => {
    if (message.type !== 'start') return;
    httpUrls = message.httpUrls;
    node.start(message.voters).then(
      () => process.send?.({ type: 'started' }),
      (error: unknown) => {
        console.error(`kv-process ${nodeId}: start failed`, error);
        process.exit(1);
      },
    );
  });
  const bound: BoundMessage = {
    type: 'bound',
    nodeId,
    raftPort: node.endpoints()[0]?.port ?? 0,
    httpPort: (server.address() as AddressInfo).port,
  };
  process.send?.(bound);
}

main().catch((error: unknown) => {
  console.error('kv-process failed', error);
  process.exit(1);
});
