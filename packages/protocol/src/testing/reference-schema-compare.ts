import type { AnyFieldDeclaration, FieldMap, StructDeclaration } from '../schema/field-declaration.js';
import type { MessageCodec } from '../schema/message-codec.js';
import { VersionRange } from '../schema/version-range.js';

/**
 * Compares a declaration with Kafka's JSON schema of the same message, field by field: names
 * and order, types, versions, nullable, tagged and flexible versions, tags, defaults, ignorable,
 * entity types and map keys, nested structs and common structs. The JSON is reference data read
 * at test time from the shared folder beside the repository, never copied into it.
 */
interface JsonField {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  ignorable?: boolean;
  default?: string | number | boolean;
  flexibleVersions?: string;
  entityType?: string;
  mapKey?: boolean;
  fields?: JsonField[];
}

interface JsonMessage {
  name: string;
  apiKey?: number;
  validVersions: string;
  flexibleVersions: string;
  fields: JsonField[];
  commonStructs?: { name: string; fields: JsonField[] }[];
}

/** Kafka's schema files carry `//` license and comment lines, which JSON.parse refuses. */
export function parseReferenceSchema(text: string): JsonMessage {
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as JsonMessage;
}

const range = (text: string | undefined): string => VersionRange.parse(text ?? 'none').toString();
const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1);

function expectedDefault(field: JsonField): unknown {
  const text = field.default;
  if (text === undefined) return undefined;
  if (text === 'null') return null;
  if (field.type === 'int64') return BigInt(text);
  if (field.type === 'bool') return text === true || text === 'true';
  if (field.type === 'string') return text;
  return Number(text);
}

function compareOptions(where: string, field: JsonField, declaration: AnyFieldDeclaration): string[] {
  const options = declaration.options;
  const checks: [string, unknown, unknown][] = [
    ['versions', range(options.versions), range(field.versions)],
    ['nullableVersions', range(options.nullableVersions), range(field.nullableVersions)],
    ['taggedVersions', range(options.taggedVersions), range(field.taggedVersions)],
    ['tag', options.tag, field.tag],
    ['ignorable', options.ignorable === true, field.ignorable === true],
    ['flexibleVersions', options.flexibleVersions, field.flexibleVersions],
    ['entityType', options.entityType, field.entityType],
    ['mapKey', options.mapKey === true, field.mapKey === true],
  ];
  if (field.default !== undefined && !field.type.startsWith('[]')) {
    checks.push(['default', declaration.defaultValue, expectedDefault(field)]);
  }
  if (field.type.startsWith('[]') && field.default === 'null') {
    checks.push(['default', declaration.defaultValue, null]);
  }
  return checks
    .filter(([, actual, expected]) => actual !== expected)
    .map(([what, actual, expected]) => `${where}.${what}: ${String(actual)} vs ${String(expected)}`);
}

function compareType(
  where: string,
  field: JsonField,
  declaration: AnyFieldDeclaration,
  common: ReadonlyMap<string, JsonField[]>,
): string[] {
  const elementType = field.type.startsWith('[]') ? field.type.slice(2) : undefined;
  const nested = field.fields ?? common.get(elementType ?? field.type);
  if (elementType !== undefined) {
    if (declaration.type !== 'array') return [`${where}: not an array`];
    if (nested === undefined) {
      return declaration.element === elementType
        ? []
        : [`${where}: element ${String(declaration.element)} vs ${elementType}`];
    }
    if (typeof declaration.element !== 'object') return [`${where}: expected a struct element`];
    return compareFields(where, nested, declaration.element, common);
  }
  if (nested !== undefined) {
    if (declaration.struct === undefined) return [`${where}: not a struct`];
    return compareFields(where, nested, declaration.struct, common);
  }
  return declaration.type === field.type ? [] : [`${where}: type ${declaration.type} vs ${field.type}`];
}

function compareFields(
  path: string,
  jsonFields: readonly JsonField[],
  ours: StructDeclaration<FieldMap>,
  common: ReadonlyMap<string, JsonField[]>,
): string[] {
  const problems: string[] = [];
  const ourNames = Object.keys(ours.fields);
  const theirNames = jsonFields.map((field) => camel(field.name));
  if (ourNames.join() !== theirNames.join()) problems.push(`${path}: fields ${ourNames} vs ${theirNames}`);
  for (const field of jsonFields) {
    const name = camel(field.name);
    const declaration = ours.fields[name] as AnyFieldDeclaration | undefined;
    if (declaration === undefined) continue;
    const where = `${path}.${name}`;
    problems.push(
      ...compareOptions(where, field, declaration),
      ...compareType(where, field, declaration, common),
    );
  }
  return problems;
}

/** How `compareWithReferenceSchema` compares a codec with a Kafka JSON schema. */
export interface ReferenceComparisonOptions {
  /** Skip the validVersions check (RequestHeader v0 is declared for a version newer schemas dropped). */
  readonly ignoreValidVersions?: boolean;
}

/** Every difference between `codec` and the reference schema text; empty when they agree. */
export function compareWithReferenceSchema(
  codec: MessageCodec<unknown>,
  referenceText: string,
  options: ReferenceComparisonOptions = {},
): string[] {
  const reference = parseReferenceSchema(referenceText);
  const common = new Map((reference.commonStructs ?? []).map((struct) => [struct.name, struct.fields]));
  const problems: string[] = [];
  const header: [string, unknown, unknown][] = [
    ['name', codec.name, reference.name],
    ['apiKey', codec.apiKey, reference.apiKey],
    ['flexibleVersions', codec.flexibleVersions.toString(), range(reference.flexibleVersions)],
  ];
  if (options.ignoreValidVersions !== true) {
    header.push(['validVersions', codec.validVersions.toString(), range(reference.validVersions)]);
  }
  for (const [what, actual, expected] of header) {
    if (actual !== expected) problems.push(`${codec.name}.${what}: ${String(actual)} vs ${String(expected)}`);
  }
  problems.push(...compareFields(codec.name, reference.fields, codec.declaration, common));
  return problems;
}
