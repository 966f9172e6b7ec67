import type { StateMachine, StateMachineSnapshotReader, StateMachineSnapshotWriter } from '@kraft/raft';

/**
 * A command in the log. `requestId` lets the node that proposed it find what it did (a
 * compare-and-set's `swapped`); every node applies it the same way. `null` is an absent value.
 */
export type KvCommand =
  | { readonly type: 'put'; readonly key: string; readonly value: string; readonly requestId: string }
  | { readonly type: 'delete'; readonly key: string; readonly requestId: string }
  | {
      readonly type: 'cas';
      readonly key: string;
      readonly expected: string | null;
      readonly value: string | null;
      readonly requestId: string;
    };

/** What applying a command did: whether it changed the map (false only for a cas that did not match). */
export interface KvResult {
  readonly swapped: boolean;
}

/**
 * The replicated map. Results are kept only for the requests this process is waiting on
 * (`expect`), so the map of results stays as small as the number of requests in flight.
 */
export class KvStateMachine implements StateMachine<KvCommand> {
  private readonly entries = new Map<string, string>();
  private readonly results = new Map<string, KvResult | undefined>();
  private restores = 0;

  get(key: string): string | null {
    return this.entries.get(key) ?? null;
  }

  size(): number {
    return this.entries.size;
  }

  /** How often this process replaced its map with a snapshot's (on start, or one the leader sent). */
  restoreCount(): number {
    return this.restores;
  }

  /** Registers a request this process proposes, so that `apply` keeps its result for `takeResult`. */
  expect(requestId: string): void {
    this.results.set(requestId, undefined);
  }

  /** The result of an expected request once applied (then forgotten); undefined before, or if abandoned. */
  takeResult(requestId: string): KvResult | undefined {
    const result = this.results.get(requestId);
    this.results.delete(requestId);
    return result;
  }

  apply(command: KvCommand): void {
    const swapped = this.execute(command);
    if (this.results.has(command.requestId)) this.results.set(command.requestId, { swapped });
  }

  snapshot(writer: StateMachineSnapshotWriter<KvCommand>): void {
    const puts: KvCommand[] = [];
    for (const [key, value] of this.entries) puts.push({ type: 'put', key, value, requestId: '' });
    writer.append(puts);
  }

  restore(reader: StateMachineSnapshotReader<KvCommand>): void {
    this.restores += 1;
    this.entries.clear();
    for (const command of reader) this.execute(command);
  }

  private execute(command: KvCommand): boolean {
    switch (command.type) {
      case 'put':
        this.entries.set(command.key, command.value);
        return true;
      case 'delete':
        this.entries.delete(command.key);
        return true;
      case 'cas': {
        if (this.get(command.key) !== command.expected) return false;
        if (command.value === null) this.entries.delete(command.key);
        else this.entries.set(command.key, command.value);
        return true;
      }
    }
  }
}
