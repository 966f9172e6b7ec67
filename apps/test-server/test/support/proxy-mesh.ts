import { ClientIdRouter } from './client-id-router.js';
import { type CutMode, FaultProxy } from './fault-proxy.js';

/**
 * A fault proxy on every directed link of a quorum, plus one `ClientIdRouter` per node.
 *
 * What a cut means: node A reaches node B only over connections A opens, and those go through
 * `link(A, B)`; B's answers to A's requests come back on the same connection. So cutting
 * `link(A, B)` stops what A initiates towards B (A's requests *and* B's answers to them), but
 * not what B initiates towards A (B's requests and A's answers), which use `link(B, A)`. The
 * one-way cuts are therefore cuts of *who can initiate*: a follower whose `link(F, L)` is cut
 * cannot fetch, although the leader can still reach it with BeginQuorumEpoch. Cutting both
 * directions isolates a pair.
 *
 * Addresses: in node A's `controller.quorum.voters`, voter B is `link(A, B)`'s port, and A's own
 * entry is A's router (not its listener). The own entry is what a leader advertises to its
 * followers, who then connect to it; the router sends each such connection into the link proxy
 * of its source node, so no connection between nodes ever bypasses the mesh.
 */
export class ProxyMesh {
  private readonly links = new Map<string, FaultProxy>();
  private readonly routers = new Map<number, ClientIdRouter>();

  private constructor(readonly nodeIds: readonly number[]) {}

  /** `listenerPorts[i]` is the real listener of node `i + 1`. */
  static async start(listenerPorts: readonly number[]): Promise<ProxyMesh> {
    const nodeIds = listenerPorts.map((_, index) => index + 1);
    const mesh = new ProxyMesh(nodeIds);
    try {
      for (const source of nodeIds) {
        for (const destination of nodeIds) {
          if (source === destination) continue;
          const proxy = await FaultProxy.start({
            targetPort: listenerPorts[destination - 1] as number,
            name: `${source}→${destination}`,
          });
          mesh.links.set(linkKey(source, destination), proxy);
        }
      }
      for (const destination of nodeIds) {
        const router = await ClientIdRouter.start(destination, (source) =>
          mesh.links.get(linkKey(source, destination)),
        );
        mesh.routers.set(destination, router);
      }
    } catch (error) {
      await mesh.close();
      throw error;
    }
    return mesh;
  }

  link(source: number, destination: number): FaultProxy {
    const proxy = this.links.get(linkKey(source, destination));
    if (proxy === undefined) throw new Error(`no link ${source}→${destination}`);
    return proxy;
  }

  /** The port node `viewer` is configured to use for voter `voter`. */
  voterPort(viewer: number, voter: number): number {
    if (viewer !== voter) return this.link(viewer, voter).port;
    const router = this.routers.get(voter);
    if (router === undefined) throw new Error(`no router for node ${voter}`);
    return router.port;
  }

  /** Every link to and from `nodeId`. */
  linksOf(nodeId: number): FaultProxy[] {
    return [...this.links.entries()]
      .filter(([key]) => key.split('→').includes(String(nodeId)))
      .map(([, proxy]) => proxy);
  }

  /** Cuts every link to and from `nodeId`: it can neither reach nor be reached. */
  isolate(nodeId: number, mode: CutMode): void {
    for (const proxy of this.linksOf(nodeId)) proxy.cut(mode);
  }

  /** Heals every link and removes every delay. */
  healAll(): void {
    for (const proxy of this.links.values()) {
      proxy.heal();
      proxy.setDelay(0);
    }
  }

  async close(): Promise<void> {
    await Promise.all([
      ...[...this.routers.values()].map((router) => router.close()),
      ...[...this.links.values()].map((proxy) => proxy.close()),
    ]);
  }
}

function linkKey(source: number, destination: number): string {
  return `${source}→${destination}`;
}
