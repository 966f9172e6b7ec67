import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyFieldDeclaration, FieldMap, StructDeclaration } from '../schema/field-declaration.js';
import type { MessageCodec } from '../schema/message-codec.js';
import { VersionRange } from '../schema/version-range.js';
import { ALL_MESSAGES } from './all-messages.js';
import { referenceSchemaCheck } from './reference-schema-check.js';

// Checks our declarations field by field against Kafka's reference schemas, read (never copied)
// from the shared kafka-spec folder when this machine has it.
const { KRAFT_KAFKA_SPEC } = process.env;
// The repository's root sits four levels above this folder; the shared folder is beside it.
const REFERENCE_DIRECTORY =
  KRAFT_KAFKA_SPEC ??
  join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'kafka-spec', 'messages');

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

function loadReference(name: string): JsonMessage {
  const text = readFileSync(join(REFERENCE_DIRECTORY, `${name}.json`), 'utf8');
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

function compareFields(
  path: string,
  jsonFields: readonly JsonField[],
  ours: StructDeclaration<FieldMap>,
  common: Map<string, JsonField[]>,
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
    const options = declaration.options;
    const checks: [string, unknown, unknown][] = [
      ['versions', range(options.versions), range(field.versions)],
      ['nullableVersions', range(options.nullableVersions), range(field.nullableVersions)],
      ['taggedVersions', range(options.taggedVersions), range(field.taggedVersions)],
      ['tag', options.tag, field.tag],
      ['ignorable', options.ignorable === true, field.ignorable === true],
      ['flexibleVersions', options.flexibleVersions, field.flexibleVersions],
    ];
    if (field.default !== undefined && !field.type.startsWith('[]')) {
      checks.push(['default', declaration.defaultValue, expectedDefault(field)]);
    }
    if (field.type.startsWith('[]') && field.default === 'null')
      checks.push(['default', declaration.defaultValue, null]);
    for (const [what, actual, expected] of checks) {
      if (actual !== expected) problems.push(`${where}.${what}: ${String(actual)} vs ${String(expected)}`);
    }
    const elementType = field.type.startsWith('[]') ? field.type.slice(2) : undefined;
    const nested = field.fields ?? common.get(elementType ?? field.type);
    if (elementType !== undefined) {
      if (declaration.type !== 'array') problems.push(`${where}: not an array`);
      else if (nested === undefined) {
        if (declaration.element !== elementType)
          problems.push(`${where}: element ${String(declaration.element)} vs ${elementType}`);
      } else if (typeof declaration.element === 'object') {
        problems.push(...compareFields(where, nested, declaration.element, common));
      } else problems.push(`${where}: expected a struct element`);
    } else if (nested !== undefined) {
      if (declaration.struct === undefined) problems.push(`${where}: not a struct`);
      else problems.push(...compareFields(where, nested, declaration.struct, common));
    } else if (declaration.type !== field.type) {
      problems.push(`${where}: type ${declaration.type} vs ${field.type}`);
    }
  }
  return problems;
}

const check = referenceSchemaCheck(REFERENCE_DIRECTORY, existsSync(REFERENCE_DIRECTORY), process.env);
if (check.kind === 'skip') process.stderr.write(`${check.notice}\n`);
if (check.kind === 'fail') {
  it('finds the Kafka reference schemas', () => {
    throw new Error(check.reason);
  });
}

describe.runIf(check.kind === 'run')('declarations match Kafka reference schemas', () => {
  it.each(ALL_MESSAGES.map((codec) => [codec.name, codec] as const))(
    '%s',
    (name, codec: MessageCodec<unknown>) => {
      const reference = loadReference(name);
      const common = new Map((reference.commonStructs ?? []).map((struct) => [struct.name, struct.fields]));
      const problems = compareFields(name, reference.fields, codec.declaration, common);
      // RequestHeader v0 is declared for ControlledShutdown v0, which newer schemas dropped.
      if (name !== 'RequestHeader') {
        expect(codec.validVersions.toString()).toBe(range(reference.validVersions));
      }
      expect(codec.flexibleVersions.toString()).toBe(range(reference.flexibleVersions));
      expect(codec.apiKey).toBe(reference.apiKey);
      expect(problems).toEqual([]);
    },
  );
});
