// The IPC messages between the raft-node scenario's runner and its RaftNode child processes.
import type { RaftNodeConfig } from '@kraft/raft';

/** What a child needs at its spawn (argv[2], as JSON): everything but the voters. */
export interface RaftNodeChildSpec {
  readonly nodeId: number;
  /** A fresh directory of the runner's, under the OS temp dir: the runner removes it. */
  readonly directory: string;
  readonly clusterId: string;
  readonly config: RaftNodeConfig;
}

/** Runner → child. */
export type RunnerMessage =
  /** Every child is bound: join the quorum these voters name. */
  | { readonly kind: 'start'; readonly voters: string }
  | { readonly kind: 'propose'; readonly id: number; readonly value: string };

/** How one `propose` ended, as the child saw it. */
export type ProposeOutcome =
  | {
      readonly kind: 'committed';
      readonly offset: number;
      readonly epoch: number;
      /** `propose()` to its promise resolving, on the child's clock. */
      readonly proposeMs: number;
    }
  | { readonly kind: 'not-leader'; readonly epoch: number; readonly leaderId: number | undefined }
  | { readonly kind: 'failed'; readonly error: string };

/** Child → runner. */
export type ChildMessage =
  | { readonly kind: 'bound'; readonly port: number }
  | { readonly kind: 'started' }
  | { readonly kind: 'proposed'; readonly id: number; readonly outcome: ProposeOutcome }
  /** The child cannot go on (its bind or start failed); it exits after this. */
  | { readonly kind: 'fatal'; readonly error: string };
