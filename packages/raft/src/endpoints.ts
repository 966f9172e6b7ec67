import type { NodeAddress } from './ports/network-channel.js';

/**
 * A replica's listener endpoints: listener name → address. Built from `controller.quorum.voters`,
 * VotersRecord, or the endpoints carried in Vote/BeginQuorumEpoch/EndQuorumEpoch/Fetch.
 * Immutable; iteration follows insertion order (deterministic).
 */
export class Endpoints {
  static readonly EMPTY = new Endpoints(new Map());

  private readonly byListener: ReadonlyMap<string, NodeAddress>;

  private constructor(byListener: ReadonlyMap<string, NodeAddress>) {
    this.byListener = byListener;
  }

  /** Builds endpoints from (listener name, address) pairs, copying each address; a later duplicate name wins. */
  static fromEntries(entries: Iterable<readonly [string, NodeAddress]>): Endpoints {
    const map = new Map<string, NodeAddress>();
    for (const [name, address] of entries) map.set(name, { host: address.host, port: address.port });
    return map.size === 0 ? Endpoints.EMPTY : new Endpoints(map);
  }

  /** True when no listener is known. */
  isEmpty(): boolean {
    return this.byListener.size === 0;
  }

  /** The address of the named listener, or undefined when this node does not advertise it. */
  address(listenerName: string): NodeAddress | undefined {
    return this.byListener.get(listenerName);
  }

  /** The first listener's address: the one a static `controller.quorum.voters` entry defines. */
  firstAddress(): NodeAddress | undefined {
    for (const address of this.byListener.values()) return address;
    return undefined;
  }

  /**
   * Where this node is reached from a node listening on `listenerName`: its address on that
   * listener, else its first one (a static `controller.quorum.voters` entry names no listener).
   */
  addressFor(listenerName: string): NodeAddress | undefined {
    return this.address(listenerName) ?? this.firstAddress();
  }

  /** The listener names in insertion order. */
  names(): IterableIterator<string> {
    return this.byListener.keys();
  }

  /** The (listener name, address) pairs in insertion order; the first is the static voter's listener. */
  entries(): IterableIterator<[string, NodeAddress]> {
    return this.byListener.entries();
  }

  /** True when both have the same listener names with the same host and port each. */
  equals(other: Endpoints): boolean {
    if (this.byListener.size !== other.byListener.size) return false;
    for (const [name, address] of this.byListener) {
      const theirs = other.byListener.get(name);
      if (theirs === undefined || theirs.host !== address.host || theirs.port !== address.port) return false;
    }
    return true;
  }
}
