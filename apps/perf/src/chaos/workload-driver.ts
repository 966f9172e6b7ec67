import type { ChaosCluster } from './chaos-cluster.js';

/**
 * What a workload adds to a chaos run, at each step of `runChaos`: the append workload is the
 * test servers' own (they write and record from their start), the kv workload drives kv-store
 * nodes from clients in a namespace of their own and checks what those clients saw.
 */
export interface WorkloadDriver {
  /** After the first leader committed: start driving the cluster (before the first fault). */
  begin(): Promise<void>;
  /** The fault window closed (every fault healed): stop issuing new operations. */
  endWindow(): void;
  /** After everything was healed: wait for what is still in flight. */
  afterHeal(failures: string[]): Promise<void>;
  /** Every node follows one leader, has caught up past `offset`, and (kv) applied all of it. */
  settled(cluster: ChaosCluster, offset: number): boolean;
  /** Once settled, before the nodes stop: the last reads (kv). */
  afterSettle(failures: string[]): Promise<void>;
  /** After every node stopped: the logs and histories checked; returns the committed offset. */
  verify(failures: string[]): Promise<number>;
}
