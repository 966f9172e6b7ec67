import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * The chaos cluster's network, made only of network namespaces (never anything in the machine's
 * own namespace): one namespace per node, holding the node's address on `lo`, and a switch
 * namespace where each pair of nodes has its own bridge. Node i reaches node j over a veth pair
 * whose other end is a port of the bridge of (i, j), so a fault on one link is a port set down in
 * the switch (the node's end loses carrier: packets vanish, nobody sees a RST or a FIN), and the
 * node namespaces keep their routes throughout. Every name carries the run's prefix.
 *
 * With `client`, one more namespace holds the workload's clients (ADR 0044): it is wired to every
 * node exactly as two nodes are, through a bridge of its own in the switch, so a client link is
 * cut the same silent way. In link names the client is endpoint 0.
 */

/** Every namespace the runner makes starts with this, then the runner's pid, then a random run id. */
export const NAMESPACE_PREFIX = 'kraftchaos-';
/** The node addresses: 10.213.0.<node id>/32, private, and only inside the run's namespaces. */
const ADDRESS_BASE = '10.213.0.';
/** The client namespace's address: in the same private range, and no node id (1-9) maps to it. */
const CLIENT_ADDRESS = `${ADDRESS_BASE}100`;
/** The client's endpoint number in link names and in the internal wiring (node ids start at 1). */
const CLIENT_ENDPOINT = 0;
/** `ip` and `tc` answer in milliseconds; a hung one means a broken machine, not a slow one. */
const COMMAND_TIMEOUT_MS = 10_000;
/** Interface names: at most 15 bytes (IFNAMSIZ − 1): `k` + 4 hex of the run + a role letter + two ids. */
const LINK_ID_HEX_CHARS = 4;

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, [...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: COMMAND_TIMEOUT_MS,
  });
}

/** Runs a command and reports whether it succeeded (for probes and best-effort cleanup). */
function succeeds(command: string, args: readonly string[]): boolean {
  try {
    run(command, args);
    return true;
  } catch {
    return false;
  }
}

/** Where Debian (per architecture) and other distributions put libfaketime's MT library. */
const FAKETIME_LIBRARIES = [
  `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketimeMT.so.1`,
  '/usr/lib/faketime/libfaketimeMT.so.1',
  '/usr/local/lib/faketime/libfaketimeMT.so.1',
];

export interface NetworkCapabilities {
  /** What is missing, one phrase each; empty when the tier can run. */
  readonly missing: readonly string[];
  /** A tmpfs can be mounted inside a private mount namespace (for the full-disk fault). */
  readonly tmpfs: boolean;
  /** libfaketime's multi-threaded library (Debian's `faketime` package), for clock jumps. */
  readonly faketimeLibrary: string | undefined;
}

/**
 * Tries, inside throwaway namespaces of its own, everything the tier needs: root, `ip netns`,
 * veth pairs made directly between namespaces, a bridge, a blackhole route, a tbf qdisc; then
 * whether tmpfs mounts and libfaketime are there for the optional faults.
 */
export function probeCapabilities(): NetworkCapabilities {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces need CAP_SYS_ADMIN)');
  const probe = `${NAMESPACE_PREFIX}${process.pid}-probe${randomBytes(2).toString('hex')}`;
  if (missing.length === 0 && !succeeds('ip', ['netns', 'add', probe])) missing.push('ip netns');
  if (missing.length === 0) {
    try {
      const steps: Array<[string, string[]]> = [
        ['veth pairs', ['-n', probe, 'link', 'add', 'kpa', 'type', 'veth', 'peer', 'name', 'kpb']],
        ['bridges', ['-n', probe, 'link', 'add', 'kpbr', 'type', 'bridge']],
        ['ip link set up', ['-n', probe, 'link', 'set', 'kpa', 'up']],
        ['blackhole routes', ['-n', probe, 'route', 'add', 'blackhole', `${ADDRESS_BASE}9/32`]],
      ];
      for (const [what, args] of steps) {
        if (!succeeds('ip', args)) {
          missing.push(what);
          break;
        }
      }
      const tbf = [
        '-n',
        probe,
        'qdisc',
        'add',
        'dev',
        'kpa',
        'root',
        'tbf',
        'rate',
        '1mbit',
        'burst',
        '32kbit',
        'latency',
        '50ms',
      ];
      if (missing.length === 0 && !succeeds('tc', tbf)) missing.push('tc qdisc tbf');
    } finally {
      succeeds('ip', ['netns', 'delete', probe]);
    }
  }
  const tmpfs =
    missing.length === 0 &&
    succeeds('unshare', [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount -t tmpfs -o size=1m kraftchaos /mnt',
    ]);
  const faketimeLibrary = FAKETIME_LIBRARIES.find((path) => existsSync(path));
  return { missing, tmpfs, faketimeLibrary };
}

/** Whether `pid` is a live process whose command line names the chaos runner. */
export function isLiveRunner(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chaos');
  } catch {
    return false;
  }
}

/**
 * Deletes namespaces an earlier runner left (it was killed before its cleanup ran): those with
 * the prefix whose runner pid is no longer a live chaos runner. Another live run's are kept.
 */
export function removeLeftoverNamespaces(): string[] {
  if (!existsSync('/run/netns')) return [];
  const removed: string[] = [];
  for (const name of readdirSync('/run/netns')) {
    if (!name.startsWith(NAMESPACE_PREFIX)) continue;
    const pid = Number(name.slice(NAMESPACE_PREFIX.length).split('-')[0]);
    if (Number.isSafeInteger(pid) && pid === process.pid) continue;
    if (Number.isSafeInteger(pid) && isLiveRunner(pid)) continue;
    if (succeeds('ip', ['netns', 'delete', name])) removed.push(name);
  }
  return removed;
}

export interface ChaosNetworkOptions {
  /** A client namespace joined to every node (the kv workload's clients run there). */
  readonly client?: boolean;
}

/** One run's namespaces and links; `destroy()` removes them all (deleting a namespace deletes its links). */
export class ChaosNetwork {
  private readonly namespaces: string[] = [];
  private readonly addresses = new Map<number, string>();
  private readonly linkId: string;
  private readonly prefix: string;
  private readonly switchNamespace: string;
  private readonly slowLinks = new Set<string>();
  private readonly blackholes = new Set<string>();
  /** Whether a client namespace is wired to every node. */
  readonly hasClient: boolean;

  private constructor(
    readonly nodeIds: readonly number[],
    options: ChaosNetworkOptions,
  ) {
    this.hasClient = options.client === true;
    const runId = randomBytes(LINK_ID_HEX_CHARS / 2).toString('hex');
    this.linkId = `k${runId}`;
    this.prefix = `${NAMESPACE_PREFIX}${process.pid}-${runId}`;
    this.switchNamespace = `${this.prefix}-switch`;
    for (const nodeId of nodeIds) {
      if (!Number.isInteger(nodeId) || nodeId < 1 || nodeId > 9) {
        throw new RangeError(`chaos node ids are 1-9 (one digit in link names), got ${nodeId}`);
      }
      this.addresses.set(nodeId, `${ADDRESS_BASE}${nodeId}`);
    }
  }

  /**
   * Makes the namespaces and links; on a failure part way, removes what it made and rethrows.
   */
  static create(nodeIds: readonly number[], options: ChaosNetworkOptions = {}): ChaosNetwork {
    const network = new ChaosNetwork(nodeIds, options);
    try {
      network.build();
    } catch (error) {
      network.destroy();
      throw error;
    }
    return network;
  }

  /** The run's prefix: every namespace of the run starts with it. */
  get namePrefix(): string {
    return this.prefix;
  }

  namespaceOf(nodeId: number): string {
    return `${this.prefix}-n${nodeId}`;
  }

  addressOf(nodeId: number): string {
    const address = this.addresses.get(nodeId);
    if (address === undefined) throw new RangeError(`node ${nodeId} is not in this chaos network`);
    return address;
  }

  /** Whether `address` is one this runner assigned: a node is started only with such destinations. */
  owns(address: string): boolean {
    return [...this.addresses.values()].includes(address);
  }

  /** The client namespace (only with the `client` option). */
  get clientNamespace(): string {
    if (!this.hasClient) throw new RangeError('this chaos network has no client namespace');
    return `${this.prefix}-client`;
  }

  /** The client's link to `nodeId` goes down, both ways, silently (the node's isolation cuts it). */
  cutClientLink(nodeId: number): void {
    this.setSwitchPorts(CLIENT_ENDPOINT, this.checkedNode(nodeId), 'down');
  }

  healClientLink(nodeId: number): void {
    this.setSwitchPorts(CLIENT_ENDPOINT, this.checkedNode(nodeId), 'up');
  }

  /** Both directions of the link between `a` and `b` go down, silently. */
  cutLink(a: number, b: number): void {
    this.setSwitchPorts(a, b, 'down');
  }

  healLink(a: number, b: number): void {
    this.setSwitchPorts(a, b, 'up');
  }

  /** Packets from `from` to `to` are dropped in `from`'s namespace (a one-way cut). */
  blackhole(from: number, to: number): void {
    run('ip', ['-n', this.namespaceOf(from), 'route', 'replace', 'blackhole', `${this.addressOf(to)}/32`]);
    this.blackholes.add(`${from},${to}`);
  }

  removeBlackhole(from: number, to: number): void {
    this.routeTo(from, to, 'replace');
    this.blackholes.delete(`${from},${to}`);
  }

  /** Both directions of the link capped by a tbf qdisc on the switch ports. */
  slowLink(a: number, b: number, rateKbit: number, latencyMs: number): void {
    for (const port of [this.switchPort(a, b), this.switchPort(b, a)]) {
      const shape = ['rate', `${rateKbit}kbit`, 'burst', '16kbit', 'latency', `${latencyMs}ms`];
      run('tc', ['-n', this.switchNamespace, 'qdisc', 'replace', 'dev', port, 'root', 'tbf', ...shape]);
    }
    this.slowLinks.add(`${a},${b}`);
  }

  restoreLink(a: number, b: number): void {
    for (const port of [this.switchPort(a, b), this.switchPort(b, a)]) {
      succeeds('tc', ['-n', this.switchNamespace, 'qdisc', 'del', 'dev', port, 'root']);
    }
    this.slowLinks.delete(`${a},${b}`);
  }

  /** Every link up (the client's too), every blackhole and tbf cap gone. */
  healAll(): void {
    for (const [a, b] of this.pairs()) this.healLink(a, b);
    if (this.hasClient) for (const nodeId of this.nodeIds) this.healClientLink(nodeId);
    for (const key of [...this.blackholes]) {
      const [from, to] = key.split(',').map(Number) as [number, number];
      this.removeBlackhole(from, to);
    }
    for (const key of [...this.slowLinks]) {
      const [a, b] = key.split(',').map(Number) as [number, number];
      this.restoreLink(a, b);
    }
  }

  /** Deletes every namespace of the run (with its links, routes and qdiscs); never throws. */
  destroy(): void {
    for (const namespace of this.namespaces.splice(0).reverse())
      succeeds('ip', ['netns', 'delete', namespace]);
  }

  private build(): void {
    this.addNamespace(this.switchNamespace);
    for (const nodeId of this.nodeIds) {
      const namespace = this.namespaceOf(nodeId);
      this.addNamespace(namespace);
      run('ip', ['-n', namespace, 'link', 'set', 'lo', 'up']);
      run('ip', ['-n', namespace, 'address', 'add', `${this.addressOf(nodeId)}/32`, 'dev', 'lo']);
    }
    for (const [a, b] of this.pairs()) this.buildLink(a, b);
    if (!this.hasClient) return;
    const client = this.clientNamespace;
    this.addNamespace(client);
    run('ip', ['-n', client, 'link', 'set', 'lo', 'up']);
    run('ip', ['-n', client, 'address', 'add', `${CLIENT_ADDRESS}/32`, 'dev', 'lo']);
    for (const nodeId of this.nodeIds) this.buildLink(CLIENT_ENDPOINT, nodeId);
  }

  /** The namespace of a link endpoint: a node's, or the client's for endpoint 0. */
  private endpointNamespace(endpoint: number): string {
    return endpoint === CLIENT_ENDPOINT ? this.clientNamespace : this.namespaceOf(endpoint);
  }

  private endpointAddress(endpoint: number): string {
    return endpoint === CLIENT_ENDPOINT ? CLIENT_ADDRESS : this.addressOf(endpoint);
  }

  private checkedNode(nodeId: number): number {
    if (!this.addresses.has(nodeId)) throw new RangeError(`node ${nodeId} is not in this chaos network`);
    return nodeId;
  }

  private addNamespace(name: string): void {
    run('ip', ['netns', 'add', name]);
    this.namespaces.push(name);
  }

  /** The bridge of (a, b) in the switch (a < b), a veth from each endpoint's namespace to one of its ports. */
  private buildLink(a: number, b: number): void {
    const bridge = `${this.linkId}b${a}${b}`;
    run('ip', ['-n', this.switchNamespace, 'link', 'add', bridge, 'type', 'bridge']);
    run('ip', ['-n', this.switchNamespace, 'link', 'set', bridge, 'up']);
    for (const [local, remote] of [
      [a, b],
      [b, a],
    ] as const) {
      const nodeEnd = this.nodePort(local, remote);
      const switchEnd = this.switchPort(local, remote);
      // Both ends are made where they live: nothing is created in the machine's own namespace.
      run('ip', [
        '-n',
        this.endpointNamespace(local),
        'link',
        'add',
        nodeEnd,
        'type',
        'veth',
        'peer',
        'name',
        switchEnd,
        'netns',
        this.switchNamespace,
      ]);
      run('ip', ['-n', this.switchNamespace, 'link', 'set', switchEnd, 'master', bridge]);
      run('ip', ['-n', this.switchNamespace, 'link', 'set', switchEnd, 'up']);
      run('ip', ['-n', this.endpointNamespace(local), 'link', 'set', nodeEnd, 'up']);
      this.routeTo(local, remote, 'add');
    }
  }

  private routeTo(from: number, to: number, verb: 'add' | 'replace'): void {
    run('ip', [
      '-n',
      this.endpointNamespace(from),
      'route',
      verb,
      `${this.endpointAddress(to)}/32`,
      'dev',
      this.nodePort(from, to),
      'src',
      this.endpointAddress(from),
    ]);
  }

  private setSwitchPorts(a: number, b: number, state: 'up' | 'down'): void {
    for (const port of [this.switchPort(a, b), this.switchPort(b, a)]) {
      run('ip', ['-n', this.switchNamespace, 'link', 'set', port, state]);
    }
  }

  /** In `local`'s namespace (the client's for 0), the veth end towards `remote`. */
  private nodePort(local: number, remote: number): string {
    return `${this.linkId}n${local}${remote}`;
  }

  /** In the switch, the port of the bridge of (local, remote) that `local`'s veth plugs into. */
  private switchPort(local: number, remote: number): string {
    return `${this.linkId}s${local}${remote}`;
  }

  private *pairs(): Generator<[number, number]> {
    for (const [index, a] of this.nodeIds.entries()) {
      for (const b of this.nodeIds.slice(index + 1)) yield [a, b];
    }
  }
}
