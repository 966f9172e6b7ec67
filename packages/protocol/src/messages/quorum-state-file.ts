import { ProtocolError } from '../errors/protocol-error.js';
import { messageFromJson, messageToJson } from '../schema/json-converter.js';
import { QuorumStateData, type QuorumStateFileData } from './quorum-state-data.js';

const DATA_VERSION_KEY = 'data_version';

/** A parsed `quorum-state` file ({@link readQuorumStateJson}): its fields and their version. */
export interface QuorumStateFile {
  /** The election state: leader id and epoch, voted id (and, at version 1, voted directory id). */
  readonly data: QuorumStateFileData;
  /** The QuorumStateData version, which is the `kraft.version` that wrote it. */
  readonly version: number;
}

/**
 * The `quorum-state` file's text, as Kafka's FileQuorumStateStore writes it: one line of
 * compact JSON, fields of the version in schema order, `data_version` last, no newline.
 */
export function writeQuorumStateJson(data: QuorumStateFileData, version: number): string {
  const json = messageToJson(QuorumStateData, data, version);
  json[DATA_VERSION_KEY] = version;
  return JSON.stringify(json);
}

/** Parses a `quorum-state` file; a missing or unknown `data_version` or a missing field is an error. */
export function readQuorumStateJson(text: string): QuorumStateFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ProtocolError('quorum-state is not valid JSON', 'QuorumStateData', { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ProtocolError('quorum-state is not a JSON object', 'QuorumStateData');
  }
  const version = (json as Record<string, unknown>)[DATA_VERSION_KEY];
  if (typeof version !== 'number' || !QuorumStateData.validVersions.contains(version)) {
    throw new ProtocolError(
      `unsupported data_version ${String(version)}`,
      `QuorumStateData.${DATA_VERSION_KEY}`,
    );
  }
  return { data: messageFromJson(QuorumStateData, json, version), version };
}
