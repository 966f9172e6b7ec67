import fc from 'fast-check';
import { Uuid } from '../primitives/uuid.js';
import type { RawTaggedField, TaggedFieldsCarrier } from '../schema/field-declaration.js';
import type { MessageCodec } from '../schema/message-codec.js';
import {
  createDefaultValue,
  type FieldPlan,
  Presence,
  type StructPlan,
  TypeCode,
} from '../schema/struct-plan.js';

/**
 * fast-check arbitraries built generically from the schema declarations: for one message
 * version, every field the version carries gets a random value (nulls where nullable, random
 * unknown tagged fields in flexible structs), every field it lacks keeps its default.
 */
const MAX_ARRAY_LENGTH = 3;

const INT64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const UUID = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Uuid.fromBytes(bytes));
const BYTES = fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes));
const STRING = fc.string({ maxLength: 16, unit: 'grapheme' });

function primitiveArbitrary(typeCode: number): fc.Arbitrary<unknown> {
  switch (typeCode) {
    case TypeCode.bool:
      return fc.boolean();
    case TypeCode.int8:
      return fc.integer({ min: -128, max: 127 });
    case TypeCode.int16:
      return fc.integer({ min: -32768, max: 32767 });
    case TypeCode.uint16:
      return fc.integer({ min: 0, max: 65535 });
    case TypeCode.int32:
      return fc.integer();
    case TypeCode.int64:
      return INT64;
    case TypeCode.float64:
      return fc.double();
    case TypeCode.uuid:
      return UUID;
    case TypeCode.string:
      return STRING;
    default:
      return BYTES;
  }
}

function fieldArbitrary(plan: FieldPlan): fc.Arbitrary<unknown> {
  let value: fc.Arbitrary<unknown>;
  if (plan.typeCode === TypeCode.array) {
    const element =
      plan.structPlan === undefined
        ? primitiveArbitrary(plan.elementTypeCode)
        : structArbitrary(plan.structPlan);
    value = fc.array(element, { maxLength: MAX_ARRAY_LENGTH });
  } else if (plan.typeCode === TypeCode.struct) {
    value = structArbitrary(plan.structPlan as StructPlan);
  } else {
    value = primitiveArbitrary(plan.typeCode);
  }
  return plan.nullable ? fc.option(value, { nil: null, freq: 4 }) : value;
}

function unknownTaggedFieldsArbitrary(plan: StructPlan): fc.Arbitrary<RawTaggedField[]> {
  return fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 2 }).chain((tags) => {
    const free = tags
      .filter((tag) => !plan.tagLookup.has(tag) && !plan.tagsOfOtherVersions.has(tag))
      .sort((a, b) => a - b);
    return fc.tuple(...free.map((tag) => BYTES.map((data) => ({ tag, data }))));
  });
}

/** Random data for one struct at the plan's version. */
export function structArbitrary(plan: StructPlan): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const fieldPlan of plan.fields) {
    model[fieldPlan.name] =
      fieldPlan.presence === Presence.absent
        ? fc.constant(null).map(() => createDefaultValue(fieldPlan.declaration))
        : fieldArbitrary(fieldPlan);
  }
  const fields = fc.record(model);
  if (!plan.flexible) return fields;
  return fc
    .tuple(fields, fc.option(unknownTaggedFieldsArbitrary(plan), { nil: undefined }))
    .map(([data, unknown]) => {
      if (unknown !== undefined && unknown.length > 0)
        (data as TaggedFieldsCarrier).unknownTaggedFields = unknown;
      return data;
    });
}

/** Random valid data of `codec` at `version`. */
export function messageArbitrary<T>(codec: MessageCodec<T>, version: number): fc.Arbitrary<T> {
  return structArbitrary(codec.planFor(version)) as fc.Arbitrary<T>;
}

/** Every version of a codec, lowest first. */
export function versionsOf(codec: MessageCodec<unknown>): number[] {
  const versions: number[] = [];
  for (let version = codec.lowestVersion; version <= codec.highestVersion; version += 1)
    versions.push(version);
  return versions;
}
