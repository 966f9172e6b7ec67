/**
 * One store process: a RaftNode and its HTTP server, on 127.0.0.1 unless `KV_HOST` names another
 * address. Started by `KvCluster` with an IPC channel: it binds both ports (0 on the first start,
 * the same ones on a restart), reports them, and joins the quorum once the parent sends the voters
 * and every node's HTTP URL. A launcher that fixes the ports up front (the chaos tier, each node
 * in a network namespace of its own) sets `KV_VOTERS` and `KV_HTTP_URLS` instead, and the process
 * starts at once; with `KV_STATUS_INTERVAL_MS` it prints its status on stdout, for a launcher
 * that cannot reach its HTTP port.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { jsonSerde, RaftNode, type RaftNodeConfig, type RaftNodeLogConfig } from '@kraft/raft';
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

/** How often the process looks whether its node stopped on a failure: soon enough for a supervisor. */
const FAILURE_CHECK_INTERVAL_MS = 200;

function requiredEnvironment(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`kv-process: ${name} is not set`);
  return value;
}

/** The voters and HTTP URLs from the environment, when the launcher gave them there. */
function startFromEnvironment(): StartMessage | undefined {
  const voters = process.env['KV_VOTERS'];
  if (voters === undefined || voters === '') return undefined;
  const httpUrls = JSON.parse(requiredEnvironment('KV_HTTP_URLS')) as unknown;
  if (typeof httpUrls !== 'object' || httpUrls === null || Array.isArray(httpUrls))
    throw new Error('kv-process: KV_HTTP_URLS must be a JSON object of node id to URL');
  return { type: 'start', voters, httpUrls: httpUrls as Record<string, string> };
}

/** One `kv-status {...}` line: the fields a launcher follows (role, epoch, leader, offsets, restores). */
function statusLine(node: RaftNode<KvCommand>, stateMachine: KvStateMachine): string {
  const status = node.status();
  return `kv-status ${JSON.stringify({
    role: status.role,
    epoch: status.epoch,
    leaderId: status.leaderId ?? null,
    highWatermark: status.highWatermark ?? null,
    logStartOffset: status.logStartOffset ?? null,
    logEndOffset: status.logEndOffset ?? null,
    appliedOffset: status.applied?.offset ?? null,
    restores: stateMachine.restoreCount(),
    pid: process.pid,
  })}`;
}

async function main(): Promise<void> {
  const nodeId = Number(requiredEnvironment('KV_NODE_ID'));
  const config = JSON.parse(process.env['KV_RAFT_CONFIG'] ?? '{}') as RaftNodeConfig;
  const log = JSON.parse(process.env['KV_LOG_CONFIG'] ?? '{}') as RaftNodeLogConfig;
  const stateMachine = new KvStateMachine();
  const host = process.env['KV_HOST'] || '127.0.0.1';
  const node = await RaftNode.bind<KvCommand>({
    nodeId,
    directory: requiredEnvironment('KV_DIRECTORY'),
    listeners: `CONTROLLER://${host}:${process.env['KV_RAFT_PORT'] ?? '0'}`,
    clusterId: 'kv-store-example',
    serde: jsonSerde<KvCommand>(),
    stateMachine,
    config,
    log,
  });
  let httpUrls: Readonly<Record<string, string>> = {};
  const server = createKvServer({
    node,
    stateMachine,
    httpUrlOf: (id) => httpUrls[String(id)],
    staleLinearizableReads: process.env['KV_STALE_LINEARIZABLE_READS'] === '1',
  });
  server.listen(Number(process.env['KV_HTTP_PORT'] ?? '0'), host);
  await once(server, 'listening');

  // SIGTERM and then the parent's exit both come here: the second call waits on the first.
  let stopping: Promise<void> | undefined;
  const shutdown = (exitCode: number): Promise<void> => {
    stopping ??= (async () => {
      server.closeAllConnections();
      server.close();
      let code = exitCode;
      try {
        await node.close();
      } catch (error) {
        // close() reports the failure the node stopped on, after releasing everything.
        console.error(`kv-process ${nodeId}: the node closed with an error`, error);
        code = 1;
      }
      process.exit(code);
    })();
    return stopping;
  };
  process.once('SIGTERM', () => shutdown(0));
  process.once('SIGINT', () => shutdown(0));
  // The parent is gone (its IPC channel closed): nothing will stop this process otherwise.
  process.once('disconnect', () => shutdown(0));
  // A node that stopped on a failure (a full disk) refuses every request from then on: exit, so
  // that whoever runs this process sees it and can start it again on the same directory.
  setInterval(() => {
    if (node.status().phase !== 'failed') return;
    console.error(`kv-process ${nodeId}: the raft node stopped on a failure; exiting`);
    void shutdown(1);
  }, FAILURE_CHECK_INTERVAL_MS).unref();

  const start = (message: StartMessage) => {
    httpUrls = message.httpUrls;
    node.start(message.voters).then(
      () => process.send?.({ type: 'started' }),
      (error: unknown) => {
        console.error(`kv-process ${nodeId}: start failed`, error);
        process.exit(1);
      },
    );
  };
  const statusIntervalMs = Number(process.env['KV_STATUS_INTERVAL_MS'] ?? '0');
  if (statusIntervalMs > 0)
    setInterval(() => console.log(statusLine(node, stateMachine)), statusIntervalMs).unref();
  const fromEnvironment = startFromEnvironment();
  if (fromEnvironment !== undefined) start(fromEnvironment);
  process.on('message', (message: StartMessage) => {
    if (message.type === 'start') start(message);
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
