import { Uuid, type VotersRecordData } from '@kraft/protocol';
import { Endpoints } from './endpoints.js';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
import { ReplicaKey } from './replica-key.js';

/** The kraft.version range a voter supports (kraft.version 0 = static voters, 1 = KIP-853). */
export interface SupportedVersionRange {
  readonly minVersion: number;
  readonly maxVersion: number;
}

/**
 * One voter of the quorum (Kafka's `VoterSet.VoterNode`): its replica key, the listener endpoints it is
 * reached on, and the range of kraft.version it supports.
 */
export interface VoterNode {
  readonly voterKey: ReplicaKey;
  readonly listeners: Endpoints;
  readonly supportedKRaftVersion: SupportedVersionRange;
}

/** The listener name static voters are reached on when the config does not say otherwise. */
export const DEFAULT_CONTROLLER_LISTENER_NAME = 'CONTROLLER';

const STATIC_VOTER_VERSIONS: SupportedVersionRange = Object.freeze({ minVersion: 0, maxVersion: 0 });

/**
 * The voters of the quorum: id → (voter key, endpoints, supported kraft.version). Immutable; the
 * mutators return new sets (KIP-853: see VoterSetHistory for the sets the log holds). Ids iterate sorted so
 * every node enumerates voters in the same order.
 */
export class VoterSet {
  private readonly voters: ReadonlyMap<number, VoterNode>;

  private constructor(voters: ReadonlyMap<number, VoterNode>) {
    this.voters = voters;
  }

  /**
   * Builds a set from voter nodes, kept in ascending id order.
   * @throws InvalidConfigurationError when two nodes have the same voter id.
   */
  static fromNodes(nodes: Iterable<VoterNode>): VoterSet {
    const sorted = [...nodes].sort((left, right) => left.voterKey.id - right.voterKey.id);
    const map = new Map<number, VoterNode>();
    for (const node of sorted) {
      if (map.has(node.voterKey.id)) {
        throw new InvalidConfigurationError(`voter ${node.voterKey.id} is listed twice`);
      }
      map.set(node.voterKey.id, node);
    }
    return new VoterSet(map);
  }

  /**
   * Parses `controller.quorum.voters`: a comma-separated list of `id@host:port`, optionally
   * `id@host:port:directoryId` (the `--initial-controllers` form). IPv6 hosts go in brackets.
   */
  static fromQuorumVotersConfig(config: string, listenerName = DEFAULT_CONTROLLER_LISTENER_NAME): VoterSet {
    const entries = config
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0);
    return VoterSet.fromNodes(entries.map((entry) => parseStaticVoter(entry, listenerName)));
  }

  /**
   * The voter set a VotersRecord holds (Kafka's `VoterSet.fromVotersRecord`): each voter's id and
   * directory id, its endpoints in record order, and its supported kraft.version range.
   * @throws InvalidConfigurationError when the record lists a voter id twice.
   */
  static fromVotersRecord(record: VotersRecordData): VoterSet {
    return VoterSet.fromNodes(
      record.voters.map((voter) => ({
        voterKey: ReplicaKey.of(voter.voterId, voter.voterDirectoryId),
        listeners: Endpoints.fromEntries(
          voter.endpoints.map(
            (endpoint) => [endpoint.name, { host: endpoint.host, port: endpoint.port }] as const,
          ),
        ),
        supportedKRaftVersion: {
          minVersion: voter.kRaftVersionFeature.minSupportedVersion,
          maxVersion: voter.kRaftVersionFeature.maxSupportedVersion,
        },
      })),
    );
  }

  /** Voters with the given ids and no endpoints (tests and simulations route by id). */
  static fromIds(ids: Iterable<number>): VoterSet {
    return VoterSet.fromNodes(
      [...ids].map((id) => ({
        voterKey: ReplicaKey.of(id),
        listeners: Endpoints.EMPTY,
        supportedKRaftVersion: STATIC_VOTER_VERSIONS,
      })),
    );
  }

  /** A new array of the voter ids, ascending. */
  voterIds(): number[] {
    return [...this.voters.keys()];
  }

  /** A new array of the voters' replica keys (id and directory id), ascending by id. */
  voterKeys(): ReplicaKey[] {
    return [...this.voters.values()].map((node) => node.voterKey);
  }

  /** A new array of the voter nodes, ascending by id. */
  voterNodes(): VoterNode[] {
    return [...this.voters.values()];
  }

  /** The number of voters. */
  size(): number {
    return this.voters.size;
  }

  /** The smallest number of voters that is a majority. */
  majoritySize(): number {
    return Math.floor(this.voters.size / 2) + 1;
  }

  /** True when some voter has this node id, whatever its directory id. */
  isVoterId(id: number): boolean {
    return this.voters.has(id);
  }

  /** True when `key` matches a voter under the ReplicaKey rule (directory ids may be unknown). */
  isVoter(key: ReplicaKey): boolean {
    const node = this.voters.get(key.id);
    return node?.voterKey.matches(key) === true;
  }

  /** True when the node is the only voter. */
  isOnlyVoter(key: ReplicaKey): boolean {
    return this.voters.size === 1 && this.isVoter(key);
  }

  /** The voter with this node id, or undefined when it is not a voter. */
  voterNode(id: number): VoterNode | undefined {
    return this.voters.get(id);
  }

  /** The voter's listener endpoints; `Endpoints.EMPTY` when the id is not a voter. */
  listeners(id: number): Endpoints {
    return this.voters.get(id)?.listeners ?? Endpoints.EMPTY;
  }

  /** A new set with `node` added (AddRaftVoter), or undefined when its id is already a voter. */
  addVoter(node: VoterNode): VoterSet | undefined {
    if (this.voters.has(node.voterKey.id)) return undefined;
    return VoterSet.fromNodes([...this.voters.values(), node]);
  }

  /**
   * A new set without the voter (RemoveRaftVoter), or undefined when no voter matches `key` under the
   * ReplicaKey rule (same id, and same directory id when both are known).
   */
  removeVoter(key: ReplicaKey): VoterSet | undefined {
    const existing = this.voters.get(key.id);
    if (existing === undefined || !existing.voterKey.matches(key)) return undefined;
    return VoterSet.fromNodes([...this.voters.values()].filter((node) => node.voterKey.id !== key.id));
  }

  /**
   * A new set with the voter of `node`'s id replaced by `node` (UpdateRaftVoter: new endpoints or
   * kraft.version range), or undefined when no voter matches `node`'s key under the ReplicaKey
   * rule. The voter keeps its own key: an update changes where a voter is reached, never who it is.
   */
  updateVoter(node: VoterNode): VoterSet | undefined {
    const existing = this.voters.get(node.voterKey.id);
    if (existing === undefined || !existing.voterKey.matches(node.voterKey)) return undefined;
    const updated: VoterNode = { ...node, voterKey: existing.voterKey };
    return VoterSet.fromNodes(
      [...this.voters.values()].map((voter) => (voter === existing ? updated : voter)),
    );
  }

  /**
   * This set as a VotersRecord at version 0 (the only version KRaft writes): voters by ascending
   * id, each with its directory id (zero when unknown), endpoints and kraft.version range.
   */
  toVotersRecord(): VotersRecordData {
    return {
      version: 0,
      voters: this.voterNodes().map((node) => ({
        voterId: node.voterKey.id,
        voterDirectoryId: node.voterKey.directoryIdOrZero(),
        endpoints: [...node.listeners.entries()].map(([name, address]) => ({
          name,
          host: address.host,
          port: address.port,
        })),
        kRaftVersionFeature: {
          minSupportedVersion: node.supportedKRaftVersion.minVersion,
          maxSupportedVersion: node.supportedKRaftVersion.maxVersion,
        },
      })),
    };
  }

  /**
   * True when both sets have the same voters with the same directory ids, endpoints and
   * kraft.version ranges: a VotersRecord restating the set changes nothing.
   */
  equals(other: VoterSet): boolean {
    if (other === this) return true;
    if (other.voters.size !== this.voters.size) return false;
    for (const [id, node] of this.voters) {
      const theirs = other.voters.get(id);
      if (
        theirs === undefined ||
        !theirs.voterKey.equals(node.voterKey) ||
        !theirs.listeners.equals(node.listeners) ||
        theirs.supportedKRaftVersion.minVersion !== node.supportedKRaftVersion.minVersion ||
        theirs.supportedKRaftVersion.maxVersion !== node.supportedKRaftVersion.maxVersion
      )
        return false;
    }
    return true;
  }

  /** A short text of the voter ids, for messages: `[1, 2, 3]`. */
  toString(): string {
    return `[${this.voterIds().join(', ')}]`;
  }

  /**
   * True when every majority of this set overlaps every majority of `other` (one change at a time):
   * at most one voter key differs between them. Keys compare exactly, directory ids included, as
   * Kafka's do: a voter whose disk was replaced (same id, new directory id) is a new voter, so
   * swapping it counts as a removal and an addition.
   */
  hasOverlappingMajority(other: VoterSet): boolean {
    let symmetricDifference = 0;
    for (const node of this.voters.values()) {
      if (other.voters.get(node.voterKey.id)?.voterKey.equals(node.voterKey) !== true)
        symmetricDifference += 1;
    }
    for (const node of other.voters.values()) {
      if (this.voters.get(node.voterKey.id)?.voterKey.equals(node.voterKey) !== true)
        symmetricDifference += 1;
    }
    return symmetricDifference <= 1;
  }
}

function parseStaticVoter(entry: string, listenerName: string): VoterNode {
  const at = entry.indexOf('@');
  if (at <= 0) throw new InvalidConfigurationError(`voter '${entry}' is not of the form id@host:port`);
  const idText = entry.slice(0, at);
  const id = Number(idText);
  if (!/^\d+$/.test(idText) || !Number.isSafeInteger(id) || id > 0x7fffffff) {
    throw new InvalidConfigurationError(`voter '${entry}' has an invalid id '${idText}'`);
  }
  const { host, rest } = splitHost(entry.slice(at + 1), entry);
  const [portText, directoryText, ...extra] = rest.split(':');
  const port = Number(portText);
  if (portText === undefined || !/^\d+$/.test(portText) || port < 0 || port > 65_535 || extra.length > 0) {
    throw new InvalidConfigurationError(`voter '${entry}' has an invalid port`);
  }
  let directoryId: Uuid | undefined;
  if (directoryText !== undefined) {
    try {
      directoryId = Uuid.fromString(directoryText);
    } catch (error) {
      throw new InvalidConfigurationError(`voter '${entry}' has an invalid directory id: ${String(error)}`);
    }
  }
  return {
    voterKey: ReplicaKey.of(id, directoryId),
    listeners: Endpoints.fromEntries([[listenerName, { host, port }]]),
    supportedKRaftVersion:
      directoryId === undefined ? STATIC_VOTER_VERSIONS : { minVersion: 0, maxVersion: 1 },
  };
}

function splitHost(text: string, entry: string): { host: string; rest: string } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0 || text[close + 1] !== ':') {
      throw new InvalidConfigurationError(`voter '${entry}' has an invalid IPv6 host`);
    }
    return { host: text.slice(1, close), rest: text.slice(close + 2) };
  }
  const colon = text.indexOf(':');
  if (colon <= 0) throw new InvalidConfigurationError(`voter '${entry}' is not of the form id@host:port`);
  return { host: text.slice(0, colon), rest: text.slice(colon + 1) };
}
