import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { Uuid } from '../primitives/uuid.js';
import { withOuterField } from './field-errors.js';
import type { MessageCodec } from './message-codec.js';
import {
  createDefaultValue,
  type FieldPlan,
  isDefaultValue,
  Presence,
  type StructPlan,
  TypeCode,
} from './struct-plan.js';

/**
 * Kafka's generated JSON form of a message (its `*JsonConverter`): the fields of the version in
 * schema order under their camelCase names, int64 as JSON numbers, uuids as their text form,
 * bytes as base64. Used for the `quorum-state` file.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `Json` plus int64 values kept exact as bigint, for `messageToJsonText`. */
type ExactJson = Json | bigint | ExactJson[] | { [key: string]: ExactJson };

function primitiveToJson(typeCode: number, value: unknown, exactInt64: boolean): ExactJson {
  switch (typeCode) {
    case TypeCode.int64: {
      if (exactInt64) return value as bigint;
      const number = Number(value as bigint);
      if (!Number.isSafeInteger(number))
        throw new ProtocolError(`${value} cannot be written exactly as JSON`);
      return number;
    }
    case TypeCode.uuid:
      return (value as Uuid).toString();
    case TypeCode.bytes:
    case TypeCode.records:
      return value === null ? null : (value as Buffer).toString('base64');
    default:
      return value as Json;
  }
}

function valueToJson(plan: FieldPlan, value: unknown, exactInt64: boolean): ExactJson {
  if (value === null) return null;
  if (plan.typeCode === TypeCode.struct)
    return structToJson(plan.structPlan as StructPlan, value as Record<string, unknown>, exactInt64);
  if (plan.typeCode !== TypeCode.array) return primitiveToJson(plan.typeCode, value, exactInt64);
  const elementPlan = plan.structPlan;
  return (value as unknown[]).map((element) =>
    elementPlan === undefined
      ? primitiveToJson(plan.elementTypeCode, element, exactInt64)
      : structToJson(elementPlan, element as Record<string, unknown>, exactInt64),
  );
}

function structToJson(
  plan: StructPlan,
  data: Record<string, unknown>,
  exactInt64: boolean,
): { [key: string]: ExactJson } {
  const json: { [key: string]: ExactJson } = {};
  for (const fieldPlan of plan.fields) {
    const value = data[fieldPlan.name];
    if (fieldPlan.presence === Presence.absent) {
      if (!fieldPlan.ignorable && !isDefaultValue(fieldPlan.declaration, value)) {
        throw new UnsupportedVersionError(
          `${plan.name}.${fieldPlan.name} cannot be written at version ${plan.version}`,
        );
      }
      continue;
    }
    if (fieldPlan.presence === Presence.tagged && isDefaultValue(fieldPlan.declaration, value)) continue;
    json[fieldPlan.name] = valueToJson(fieldPlan, value, exactInt64);
  }
  return json;
}

function expectType(condition: boolean, what: string): void {
  if (!condition) throw new ProtocolError(`expected ${what}`);
}

function primitiveFromJson(typeCode: number, json: unknown): unknown {
  switch (typeCode) {
    case TypeCode.bool:
      expectType(typeof json === 'boolean', 'a boolean');
      return json;
    case TypeCode.int64:
      expectType(typeof json === 'number' && Number.isSafeInteger(json), 'an integer');
      return BigInt(json as number);
    case TypeCode.float64:
      expectType(typeof json === 'number', 'a number');
      return json;
    case TypeCode.uuid:
      expectType(typeof json === 'string', 'a uuid string');
      return Uuid.fromString(json as string);
    case TypeCode.string:
      expectType(typeof json === 'string', 'a string');
      return json;
    case TypeCode.bytes:
    case TypeCode.records:
      expectType(typeof json === 'string', 'a base64 string');
      return Buffer.from(json as string, 'base64');
    default:
      expectType(typeof json === 'number' && Number.isInteger(json), 'an integer');
      return json;
  }
}

function valueFromJson(plan: FieldPlan, json: unknown): unknown {
  if (json === null) {
    if (!plan.nullable) throw new ProtocolError('null in a non-nullable field');
    return null;
  }
  if (plan.typeCode === TypeCode.struct) return structFromJson(plan.structPlan as StructPlan, json);
  if (plan.typeCode !== TypeCode.array) return primitiveFromJson(plan.typeCode, json);
  expectType(Array.isArray(json), 'an array');
  const elementPlan = plan.structPlan;
  return (json as unknown[]).map((element, index) => {
    try {
      return elementPlan === undefined
        ? primitiveFromJson(plan.elementTypeCode, element)
        : structFromJson(elementPlan, element);
    } catch (error) {
      throw withOuterField(error, `[${index}]`);
    }
  });
}

function structFromJson(plan: StructPlan, json: unknown): Record<string, unknown> {
  expectType(typeof json === 'object' && json !== null && !Array.isArray(json), 'an object');
  const object = json as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  for (const fieldPlan of plan.fields) {
    const value = object[fieldPlan.name];
    if (
      fieldPlan.presence === Presence.absent ||
      (value === undefined && fieldPlan.presence === Presence.tagged)
    ) {
      data[fieldPlan.name] = createDefaultValue(fieldPlan.declaration);
      continue;
    }
    if (value === undefined) {
      throw new ProtocolError(`mandatory at version ${plan.version} but missing`, fieldPlan.name);
    }
    try {
      data[fieldPlan.name] = valueFromJson(fieldPlan, value);
    } catch (error) {
      throw withOuterField(error, fieldPlan.name);
    }
  }
  return data;
}

/**
 * The JSON object Kafka's JsonConverter writes for `data` at `version`. An int64 beyond a
 * double's exact range is a `ProtocolError` here: use `messageToJsonText` for those.
 */
export function messageToJson<T>(codec: MessageCodec<T>, data: T, version: number): { [key: string]: Json } {
  return structToJson(codec.planFor(version), data as Record<string, unknown>, false) as {
    [key: string]: Json;
  };
}

function jsonText(value: ExactJson): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  const members = Object.entries(value).map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`);
  return `{${members.join(',')}}`;
}

/**
 * The same JSON form as compact text, with every int64 written exactly as Kafka's Jackson does
 * (a producer id of 2^62 stays 4611686018427387904, never a rounded double).
 */
export function messageToJsonText<T>(codec: MessageCodec<T>, data: T, version: number): string {
  return jsonText(structToJson(codec.planFor(version), data as Record<string, unknown>, true));
}

/** Reads Kafka's JSON form at `version`: a missing non-tagged field of the version is an error. */
export function messageFromJson<T>(codec: MessageCodec<T>, json: unknown, version: number): T {
  try {
    return structFromJson(codec.planFor(version), json) as T;
  } catch (error) {
    throw withOuterField(error, codec.name);
  }
}
