import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { forkSourceChild } from '../support/fork-source-child.js';
import type { ExitStatus } from '../support/test-server-process.js';
import type { ChildMessage, ProposeOutcome, RaftNodeChildSpec, RunnerMessage } from './raft-node-messages.js';

const ENTRY_POINT = join(import.meta.dirname, 'raft-node-child.ts');

/** A propose's outcome with the runner's clock around it (send → reply over IPC). */
export type ProposeReply = (ProposeOutcome | { readonly kind: 'exited' }) & {
  readonly sentAtMs: number;
  readonly receivedAtMs: number;
};

/**
 * One RaftNode child process, seen from the runner: its bound port, `start`, `propose` as
 * request and reply, and `kill` (SIGKILL). A child that exits settles every request it
 * still had: proposals with `exited`, a pending start with an error.
 */
export class RaftNodeProcess {
  readonly port: Promise<number>;
  private readonly child: ChildProcess;
  private readonly exitedPromise: Promise<ExitStatus>;
  private readonly pending = new Map<number, (outcome: ProposeOutcome | { kind: 'exited' }) => void>();
  private nextId = 0;
  private fatalError: string | undefined;
  private exitStatus: ExitStatus | undefined;
  private onStarted: ((error?: Error) => void) | undefined;

  constructor(readonly spec: RaftNodeChildSpec) {
    this.child = forkSourceChild(ENTRY_POINT, spec);
    this.exitedPromise = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        this.settleAfterExit();
        resolve(this.exitStatus);
      });
    });
    this.port = new Promise((resolve, reject) => {
      this.child.on('message', (message: ChildMessage) => {
        if (message.kind === 'bound') resolve(message.port);
        else this.handle(message);
      });
      this.exitedPromise.then(() => reject(this.exitError('before it bound')));
    });
    // Observed here: a child that dies before the caller awaits its port is not an unhandled rejection.
    this.port.catch(() => {});
  }

  get nodeId(): number {
    return this.spec.nodeId;
  }

  get running(): boolean {
    return this.exitStatus === undefined;
  }

  /** Joins the quorum `voters`; resolves once the child's RaftNode has started. */
  start(voters: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.running) return reject(this.exitError('before it started'));
      this.onStarted = (error) => (error === undefined ? resolve() : reject(error));
      this.send({ kind: 'start', voters });
    });
  }

  /** One proposal of `value`; never rejects: a dead child answers `exited`. */
  propose(value: string): Promise<ProposeReply> {
    const sentAtMs = performance.now();
    return new Promise((resolve) => {
      const settle = (outcome: ProposeOutcome | { kind: 'exited' }) =>
        resolve({ ...outcome, sentAtMs, receivedAtMs: performance.now() });
      if (!this.running) return settle({ kind: 'exited' });
      const id = this.nextId++;
      this.pending.set(id, settle);
      this.send({ kind: 'propose', id, value });
    });
  }

  /** kill -9: the node stops where it is (unflushed writes lost, no resignation). */
  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  exited(): Promise<ExitStatus> {
    return this.exitedPromise;
  }

  private send(message: RunnerMessage): void {
    // A child killed a moment ago may have closed its channel before its exit event.
    if (this.child.connected) this.child.send(message);
  }

  private handle(message: ChildMessage): void {
    switch (message.kind) {
      case 'started':
        this.onStarted?.();
        this.onStarted = undefined;
        return;
      case 'proposed':
        this.pending.get(message.id)?.(message.outcome);
        this.pending.delete(message.id);
        return;
      case 'fatal':
        this.fatalError = message.error;
        return;
      case 'bound':
        return;
    }
  }

  private settleAfterExit(): void {
    for (const settle of this.pending.values()) settle({ kind: 'exited' });
    this.pending.clear();
    this.onStarted?.(this.exitError('while starting'));
    this.onStarted = undefined;
  }

  private exitError(when: string): Error {
    const how = JSON.stringify(this.exitStatus);
    const why = this.fatalError === undefined ? '' : `: ${this.fatalError}`;
    return new Error(`raft node ${this.nodeId} exited ${how} ${when}${why}`);
  }
}
