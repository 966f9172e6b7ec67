import { readMetaProperties } from '@kraft/log';
import { KRaftError, type Uuid } from '@kraft/protocol';
import { type FileSystem, NodeFileSystem } from '@kraft/records';
import { type ListenerSpec, parseListeners } from '@kraft/transport-tcp';
import { parseList } from '../config/config-definitions.js';
import { MetadataQuorumError } from './metadata-quorum-error.js';

/** One listener of a voter as AddRaftVoter carries it (Kafka's `RaftVoterEndpoint`). */
export interface RaftVoterEndpoint {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** What AddRaftVoter asks the leader to add: the controller's id, directory id and listeners. */
export interface ControllerRegistration {
  readonly controllerId: number;
  readonly directoryId: Uuid;
  readonly metadataDirectory: string;
  readonly endpoints: readonly RaftVoterEndpoint[];
}

const NOT_A_CONTROLLER_CONFIG = 'Is this a valid controller configuration file?';

/**
 * Reads the controller to add from its own config, as Kafka's `MetadataQuorumCommand` does: the
 * node id, the directory id from `meta.properties` in its metadata log dir (so the controller must
 * have been formatted, that is started once), and the endpoint of every `controller.listener.names`
 * entry, from `advertised.listeners` over `listeners`. Two differences, both the test server's
 * own reading of the same file: a missing `process.roles` means `controller` (the test server's
 * default), and `log.dir` is a metadata log dir of last resort (Kafka's server falls back to it too;
 * its tool does not).
 */
export function readControllerRegistration(
  properties: Readonly<Record<string, string>>,
  fileSystem: FileSystem = new NodeFileSystem(),
): ControllerRegistration {
  const controllerId = controllerIdOf(properties);
  const metadataDirectory = metadataDirectoryOf(properties);
  return {
    controllerId,
    directoryId: directoryIdOf(fileSystem, metadataDirectory),
    metadataDirectory,
    endpoints: controllerEndpointsOf(properties),
  };
}

function controllerIdOf(properties: Readonly<Record<string, string>>): number {
  const text = properties['node.id'];
  if (text === undefined)
    throw new MetadataQuorumError(`node.id not found in configuration file. ${NOT_A_CONTROLLER_CONFIG}`);
  const nodeId = /^[+-]?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(nodeId) || nodeId > 2 ** 31 - 1 || nodeId < -(2 ** 31))
    throw new MetadataQuorumError(`node.id '${text}' is not a 32-bit integer. ${NOT_A_CONTROLLER_CONFIG}`);
  if (nodeId < 0)
    throw new MetadataQuorumError(`node.id was negative in configuration file. ${NOT_A_CONTROLLER_CONFIG}`);
  const roles = properties['process.roles'];
  if (roles !== undefined && !parseList(roles).includes('controller')) {
    throw new MetadataQuorumError(
      `process.roles did not contain 'controller' in configuration file. ${NOT_A_CONTROLLER_CONFIG}`,
    );
  }
  return nodeId;
}

function metadataDirectoryOf(properties: Readonly<Record<string, string>>): string {
  const metadataLogDir = properties['metadata.log.dir']?.trim();
  if (metadataLogDir !== undefined && metadataLogDir !== '') return metadataLogDir;
  for (const key of ['log.dirs', 'log.dir']) {
    const first = parseList(properties[key] ?? '')[0];
    if (first !== undefined && first !== '') return first;
  }
  throw new MetadataQuorumError(
    `Neither metadata.log.dir nor log.dirs were found. ${NOT_A_CONTROLLER_CONFIG}`,
  );
}

function directoryIdOf(fileSystem: FileSystem, metadataDirectory: string): Uuid {
  let directoryId: Uuid | undefined;
  try {
    const metaProperties = readMetaProperties(fileSystem, metadataDirectory);
    if (metaProperties === undefined)
      throw new MetadataQuorumError(`Unable to read meta.properties from ${metadataDirectory}`);
    directoryId = metaProperties.directoryId;
  } catch (error) {
    if (MetadataQuorumError.isMetadataQuorumError(error) || !KRaftError.isInstance(error)) throw error;
    throw new MetadataQuorumError(
      `Unable to read meta.properties from ${metadataDirectory}: ${error.message}`,
      {
        cause: error,
      },
    );
  }
  if (directoryId === undefined)
    throw new MetadataQuorumError(`No directory id found in ${metadataDirectory}`);
  return directoryId;
}

function listenersOf(properties: Readonly<Record<string, string>>, key: string): ListenerSpec[] {
  try {
    return parseListeners(properties[key] ?? '');
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    throw new MetadataQuorumError(`${key}: ${error.message}`, { cause: error });
  }
}

function controllerEndpointsOf(properties: Readonly<Record<string, string>>): RaftVoterEndpoint[] {
  const byName = new Map<string, ListenerSpec>();
  for (const key of ['listeners', 'advertised.listeners']) {
    for (const listener of listenersOf(properties, key)) byName.set(listener.name, listener);
  }
  const names = properties['controller.listener.names'];
  if (names === undefined)
    throw new MetadataQuorumError(`controller.listener.names was not found. ${NOT_A_CONTROLLER_CONFIG}`);
  const endpoints = new Map<string, RaftVoterEndpoint>();
  for (const entry of names.split(',')) {
    // Kafka's ListenerName.normalised: listener names are case-insensitive, upper case on the wire.
    const name = entry.trim().toUpperCase();
    const listener = byName.get(name);
    if (listener === undefined)
      throw new MetadataQuorumError(`Cannot find information about controller listener name: ${name}`);
    // A listener bound to every interface (`CONTROLLER://:9093`) is advertised as localhost, as in Kafka.
    const endpoint = {
      name: listener.name,
      host: listener.host === '' ? 'localhost' : listener.host,
      port: listener.port,
    };
    endpoints.set(`${endpoint.name}|${endpoint.host}|${endpoint.port}`, endpoint);
  }
  return [...endpoints.values()];
}
