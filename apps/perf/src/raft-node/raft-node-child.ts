// Child-process entry of the raft-node scenario: one RaftNode on 127.0.0.1 port 0 in its own
// process. It reports its bound port, starts on the voters the runner sends once every child is
// bound, and runs the runner's proposals, answering each with its committed offset and epoch or
// why not (NotLeaderError names the leader). Protocol: raft-node-messages.ts.
import { performance } from 'node:perf_hooks';
import { jsonSerde, NotLeaderError, RaftNode } from '@kraft/raft';
import type { ChildMessage, ProposeOutcome, RaftNodeChildSpec, RunnerMessage } from './raft-node-messages.js';

function send(message: ChildMessage, sent?: () => void): void {
  if (process.send === undefined) throw new Error('raft-node-child: not started with an IPC channel');
  process.send(message, undefined, {}, sent);
}

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

async function propose(node: RaftNode<string>, value: string): Promise<ProposeOutcome> {
  const startMs = performance.now();
  try {
    const { offset, epoch } = await node.propose([value]);
    return { kind: 'committed', offset, epoch, proposeMs: performance.now() - startMs };
  } catch (error) {
    if (error instanceof NotLeaderError) {
      return { kind: 'not-leader', epoch: error.epoch, leaderId: error.leaderId };
    }
    return { kind: 'failed', error: describe(error) };
  }
}

/** Reports `error` and exits: the runner sees the node gone, as after a crash. */
function fail(error: unknown): void {
  // Exits once the message is out: an exit right away could drop it.
  send({ kind: 'fatal', error: describe(error) }, () => process.exit(1));
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as RaftNodeChildSpec;
  // The runner's channel is this process's lifeline: a runner that dies, even by kill -9, takes
  // its children with it rather than leaving a quorum running.
  process.once('disconnect', () => process.exit(0));
  const node = await RaftNode.bind({
    nodeId: spec.nodeId,
    directory: spec.directory,
    listeners: 'CONTROLLER://127.0.0.1:0',
    clusterId: spec.clusterId,
    serde: jsonSerde<string>(),
    config: spec.config,
  });
  process.on('message', (message: RunnerMessage) => {
    switch (message.kind) {
      case 'start':
        node.start(message.voters).then(() => send({ kind: 'started' }), fail);
        return;
      case 'propose':
        propose(node, message.value).then(
          (outcome) => send({ kind: 'proposed', id: message.id, outcome }),
          fail,
        );
        return;
    }
  });
  send({ kind: 'bound', port: node.endpoints()[0]?.port ?? 0 });
}

main().catch(fail);
