import { InvalidListenerConfigError } from './errors/invalid-listener-config-error.js';

/**
 * Kafka's `SecurityProtocol` of a listener. Every one parses, so Kafka's configuration files
 * load; the transport serves and connects over PLAINTEXT and SSL, and refuses the SASL ones.
 */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** One entry of `listeners`: a named endpoint the server binds. */
export interface ListenerSpec {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly securityProtocol: SecurityProtocol;
}

/** A network address as written in Kafka's configuration (`host:port`). */
export interface HostAndPort {
  /** Name or IP address, without the brackets of `[ipv6]`; empty for every interface. */
  readonly host: string;
  /** TCP port, 0..65535 (0 lets the system pick, when binding). */
  readonly port: number;
}

const SECURITY_PROTOCOLS: ReadonlySet<string> = new Set(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']);

/** `host:port`, `[ipv6]:port` or `:port` (every interface). */
export function parseHostAndPort(value: string, context: string): HostAndPort {
  const match = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  if (match === null) throw new InvalidListenerConfigError(`${context}: expected host:port, got "${value}"`);
  const port = Number(match[3]);
  if (port > 65_535) throw new InvalidListenerConfigError(`${context}: port ${port} out of range`);
  return { host: match[1] ?? match[2] ?? '', port };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/**
 * Parses `listeners` (`CONTROLLER://localhost:9093,PLAINTEXT://:9092`). A listener's security
 * protocol comes from `listener.security.protocol.map`, or is its name when that is a protocol,
 * or PLAINTEXT for a custom name such as CONTROLLER (Kafka's default map).
 */
export function parseListeners(
  value: string,
  securityProtocolMap: Readonly<Record<string, string>> = {},
): ListenerSpec[] {
  const names = new Set<string>();
  return splitList(value).map((entry) => {
    const match = /^([A-Za-z0-9_]+):\/\/(.*)$/.exec(entry);
    if (match === null)
      throw new InvalidListenerConfigError(`listeners: expected NAME://host:port, got "${entry}"`);
    const name = match[1]!.toUpperCase();
    if (names.has(name)) throw new InvalidListenerConfigError(`listeners: duplicate listener ${name}`);
    names.add(name);
    const address = parseHostAndPort(match[2]!, `listeners ${name}`);
    const protocol = securityProtocolMap[name] ?? (SECURITY_PROTOCOLS.has(name) ? name : 'PLAINTEXT');
    if (!SECURITY_PROTOCOLS.has(protocol)) {
      throw new InvalidListenerConfigError(`listener ${name}: unknown security protocol ${protocol}`);
    }
    return { name, host: address.host, port: address.port, securityProtocol: protocol as SecurityProtocol };
  });
}

/**
 * The listeners a KRaft controller serves: those named in `controller.listener.names`, in that
 * order. Every name must be one of `listeners`.
 */
export function selectControllerListeners(
  listeners: readonly ListenerSpec[],
  controllerListenerNames: string,
): ListenerSpec[] {
  return splitList(controllerListenerNames).map((rawName) => {
    const name = rawName.toUpperCase();
    const listener = listeners.find((candidate) => candidate.name === name);
    if (listener === undefined) {
      throw new InvalidListenerConfigError(`controller.listener.names: ${name} is not in listeners`);
    }
    return listener;
  });
}

/**
 * A static voter and its address: one entry of `controller.quorum.voters` (`id@host:port`), as
 * `@kraft/raft`'s `VoterSet.fromQuorumVotersConfig` parses it (the one parser of that setting).
 */
export interface QuorumVoter extends HostAndPort {
  /** The voter's `node.id`, 0..2^31-1. */
  readonly nodeId: number;
}

/** Parses `controller.quorum.bootstrap.servers` (`localhost:9093,localhost:9094`). */
export function parseBootstrapServers(value: string): HostAndPort[] {
  return splitList(value).map((entry) => parseHostAndPort(entry, 'controller.quorum.bootstrap.servers'));
}
