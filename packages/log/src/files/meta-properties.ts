import { Uuid } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { joinPath, readSmallFile, writeFileAtomically } from './atomic-file.js';

/** The file name of `meta.properties` inside the log directory: the node and cluster identity. */
export const META_PROPERTIES_FILE = 'meta.properties';

/** The KRaft form of `meta.properties` (version 1); the server decides what to do with it. */
export interface MetaProperties {
  readonly version: 0 | 1;
  readonly clusterId?: string;
  readonly nodeId?: number;
  readonly directoryId?: Uuid;
  /** Keys this code does not interpret, kept so a rewrite does not lose them. */
  readonly otherProperties?: ReadonlyMap<string, string>;
}

const KNOWN_KEYS = new Set(['version', 'cluster.id', 'node.id', 'directory.id', 'broker.id']);

/** Reads `<logDir>/meta.properties`, or undefined when the directory has none. */
export function readMetaProperties(fileSystem: FileSystem, logDirectory: string): MetaProperties | undefined {
  const bytes = readSmallFile(fileSystem, joinPath(logDirectory, META_PROPERTIES_FILE));
  return bytes === undefined
    ? undefined
    : metaPropertiesFromMap(parseJavaProperties(bytes.toString('latin1')));
}

/** Writes `<logDir>/meta.properties` through `.tmp`, fsync and rename, as Kafka does. */
export function writeMetaProperties(
  fileSystem: FileSystem,
  logDirectory: string,
  properties: MetaProperties,
  now = new Date(),
): void {
  const entries = new Map<string, string>(properties.otherProperties ?? []);
  if (properties.nodeId !== undefined) entries.set('node.id', String(properties.nodeId));
  if (properties.directoryId !== undefined) entries.set('directory.id', properties.directoryId.toString());
  entries.set('version', String(properties.version));
  if (properties.clusterId !== undefined) entries.set('cluster.id', properties.clusterId);
  const text = formatJavaProperties(entries, now);
  writeFileAtomically(fileSystem, joinPath(logDirectory, META_PROPERTIES_FILE), Buffer.from(text, 'latin1'));
}

/** Validates and types the raw key/value pairs of a meta.properties file. */
export function metaPropertiesFromMap(map: ReadonlyMap<string, string>): MetaProperties {
  const version = map.get('version');
  if (version !== '0' && version !== '1') {
    throw new InvalidConfigurationError(`meta.properties: unsupported version '${version ?? '(missing)'}'`);
  }
  const nodeText = map.get('node.id') ?? (version === '0' ? map.get('broker.id') : undefined);
  const clusterId = map.get('cluster.id');
  const directoryText = map.get('directory.id');
  if (version === '1' && nodeText === undefined)
    throw new InvalidConfigurationError('meta.properties: version 1 requires node.id');
  if (version === '1' && clusterId === undefined)
    throw new InvalidConfigurationError('meta.properties: version 1 requires cluster.id');
  const otherProperties = new Map([...map].filter(([key]) => !KNOWN_KEYS.has(key)));
  return {
    version: version === '1' ? 1 : 0,
    ...(clusterId === undefined ? {} : { clusterId }),
    ...(nodeText === undefined ? {} : { nodeId: parseNodeId(nodeText) }),
    ...(directoryText === undefined ? {} : { directoryId: parseDirectoryId(directoryText) }),
    ...(otherProperties.size === 0 ? {} : { otherProperties }),
  };
}

/** Who a log directory should belong to; an undefined field is not checked. */
export interface MetaPropertiesOwner {
  readonly nodeId: number;
  readonly clusterId?: string | undefined;
  readonly directoryId?: Uuid | undefined;
}

/**
 * The checks a KRaft server runs on start (Kafka `MetaPropertiesEnsemble.verify`): the file is a
 * version 1 file for this node and, when the caller knows them, this cluster and directory id.
 * Returns one line per mismatch (empty when the file belongs to `expected`).
 */
export function metaPropertiesMismatches(
  properties: MetaProperties,
  expected: MetaPropertiesOwner,
): string[] {
  const mismatches: string[] = [];
  if (properties.version !== 1) mismatches.push(`version is ${properties.version}, KRaft requires 1`);
  if (expected.clusterId !== undefined && properties.clusterId !== expected.clusterId) {
    mismatches.push(`cluster.id is ${properties.clusterId}, expected ${expected.clusterId}`);
  }
  if (properties.nodeId !== expected.nodeId) {
    mismatches.push(`node.id is ${properties.nodeId} but the config has node.id=${expected.nodeId}`);
  }
  const directoryId = properties.directoryId;
  if (
    directoryId !== undefined &&
    expected.directoryId !== undefined &&
    !directoryId.equals(expected.directoryId)
  ) {
    mismatches.push(
      `directory.id is ${directoryId.toString()} but the node was given directory id ${expected.directoryId.toString()}`,
    );
  }
  return mismatches;
}

/** Throws InvalidConfigurationError naming every {@link metaPropertiesMismatches} line, if any. */
export function verifyMetaProperties(properties: MetaProperties, expected: MetaPropertiesOwner): void {
  const mismatches = metaPropertiesMismatches(properties, expected);
  if (mismatches.length > 0) throw new InvalidConfigurationError(`meta.properties: ${mismatches.join('; ')}`);
}

function parseNodeId(text: string): number {
  if (!/^-?\d+$/.test(text))
    throw new InvalidConfigurationError(`meta.properties: node.id '${text}' is not an integer`);
  const value = Number(text);
  if (value < 0 || value > 2 ** 31 - 1)
    throw new InvalidConfigurationError(`meta.properties: node.id ${text} is out of range`);
  return value;
}

function parseDirectoryId(text: string): Uuid {
  try {
    return Uuid.fromString(text);
  } catch (error) {
    throw new InvalidConfigurationError(
      `meta.properties: directory.id '${text}' is invalid (${(error as Error).message})`,
    );
  }
}

/**
 * Parses `java.util.Properties` text: `#`/`!` comments, `=`, `:` or whitespace separators,
 * backslash escapes (`\t \n \r \f \uXXXX`, escaped separators) and line continuations.
 */
export function parseJavaProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const logical of logicalLines(text)) {
    let index = 0;
    let key = '';
    while (index < logical.length) {
      const character = logical[index] as string;
      if (character === '\\') {
        const [decoded, consumed] = unescapeAt(logical, index);
        key += decoded;
        index += consumed;
        continue;
      }
      if (character === '=' || character === ':' || /\s/.test(character)) break;
      key += character;
      index += 1;
    }
    while (index < logical.length && /[ \t\f]/.test(logical[index] as string)) index += 1;
    if (logical[index] === '=' || logical[index] === ':') index += 1;
    while (index < logical.length && /[ \t\f]/.test(logical[index] as string)) index += 1;
    let value = '';
    while (index < logical.length) {
      if (logical[index] === '\\') {
        const [decoded, consumed] = unescapeAt(logical, index);
        value += decoded;
        index += consumed;
      } else {
        value += logical[index];
        index += 1;
      }
    }
    result.set(key, value);
  }
  return result;
}

function logicalLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  const result: string[] = [];
  let pending = '';
  let continuing = false;
  for (const raw of lines) {
    const line = continuing ? raw.replace(/^[ \t\f]+/, '') : raw.replace(/^[ \t\f]+/, '');
    if (!continuing && (line === '' || line.startsWith('#') || line.startsWith('!'))) continue;
    const trailingBackslashes = /\\*$/.exec(line)?.[0].length ?? 0;
    if (trailingBackslashes % 2 === 1) {
      pending += line.slice(0, -1);
      continuing = true;
      continue;
    }
    result.push(pending + line);
    pending = '';
    continuing = false;
  }
  if (continuing && pending !== '') result.push(pending);
  return result;
}

function unescapeAt(text: string, index: number): [string, number] {
  const next = text[index + 1];
  switch (next) {
    case undefined:
      return ['', 1];
    case 't':
      return ['\t', 2];
    case 'n':
      return ['\n', 2];
    case 'r':
      return ['\r', 2];
    case 'f':
      return ['\f', 2];
    case 'u': {
      const hex = text.slice(index + 2, index + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex))
        throw new InvalidConfigurationError(`malformed \\u escape '\\u${hex}'`);
      return [String.fromCharCode(Number.parseInt(hex, 16)), 6];
    }
    default:
      return [next, 2];
  }
}

/** Writes `Properties.store(writer, "")` output: an empty comment, a date comment, escaped pairs. */
export function formatJavaProperties(entries: ReadonlyMap<string, string>, now: Date): string {
  let text = `#\n#${formatJavaDate(now)}\n`;
  for (const [key, value] of entries)
    text += `${escapeProperty(key, true)}=${escapeProperty(value, false)}\n`;
  return text;
}

function escapeProperty(text: string, isKey: boolean): string {
  let result = '';
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index] as string;
    const code = character.charCodeAt(0);
    if (character === ' ' && (isKey || index === 0)) result += '\\ ';
    else if (
      character === '\\' ||
      character === '=' ||
      character === ':' ||
      character === '#' ||
      character === '!'
    )
      result += `\\${character}`;
    else if (character === '\t') result += '\\t';
    else if (character === '\n') result += '\\n';
    else if (character === '\r') result += '\\r';
    else if (character === '\f') result += '\\f';
    else if (code < 0x20 || code > 0x7e) result += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else result += character;
  }
  return result;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `java.util.Date.toString()` in UTC: `Thu Jan 01 00:00:00 UTC 1970`. */
function formatJavaDate(date: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${pad(date.getUTCDate())} ${time} UTC ${date.getUTCFullYear()}`;
}
