import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import type { ByteWriter } from '../primitives/byte-writer.js';
import type { Uuid } from '../primitives/uuid.js';
import type { RawTaggedField, TaggedFieldsCarrier } from './field-declaration.js';
import { asWriteError, checkStringSize, failNull } from './field-errors.js';
import { type FieldPlan, isDefaultValue, Presence, type StructPlan, TypeCode } from './struct-plan.js';

const NO_TAGGED_FIELDS: readonly RawTaggedField[] = Object.freeze([]);

function writeString(writer: ByteWriter, plan: FieldPlan, value: string | null, compact: boolean): void {
  if (value === null && !plan.nullable) failNull(plan, 'string');
  if (value !== null) checkStringSize(value);
  if (compact) writer.writeCompactNullableString(value);
  else writer.writeNullableString(value);
}

function writePrimitive(
  writer: ByteWriter,
  plan: FieldPlan,
  typeCode: number,
  value: unknown,
  nullable: boolean,
): void {
  switch (typeCode) {
    case TypeCode.bool:
      writer.writeBool(value as boolean);
      return;
    case TypeCode.int8:
      writer.writeInt8(value as number);
      return;
    case TypeCode.int16:
      writer.writeInt16(value as number);
      return;
    case TypeCode.uint16:
      writer.writeUint16(value as number);
      return;
    case TypeCode.int32:
      writer.writeInt32(value as number);
      return;
    case TypeCode.int64:
      writer.writeInt64(value as bigint);
      return;
    case TypeCode.float64:
      writer.writeFloat64(value as number);
      return;
    case TypeCode.uuid:
      writer.writeUuid(value as Uuid);
      return;
    case TypeCode.string:
      if (value === null && !nullable) failNull(plan, 'string');
      writeString(writer, plan, value as string | null, plan.compact);
      return;
    default:
      if (value === null && !nullable) failNull(plan, 'bytes');
      if (plan.compact) writer.writeCompactNullableBytes(value as Buffer | null);
      else writer.writeNullableBytes(value as Buffer | null);
  }
}

function writeArray(writer: ByteWriter, plan: FieldPlan, value: unknown[] | null): void {
  if (value === null) {
    if (!plan.nullable) failNull(plan, 'array');
    writer.writeArrayLength(plan.compact, null);
    return;
  }
  writer.writeArrayLength(plan.compact, value.length);
  const elementPlan = plan.structPlan;
  for (let index = 0; index < value.length; index += 1) {
    try {
      if (elementPlan === undefined) writePrimitive(writer, plan, plan.elementTypeCode, value[index], false);
      else writeStruct(writer, elementPlan, value[index] as Record<string, unknown>);
    } catch (error) {
      throw asWriteError(error, `[${index}]`);
    }
  }
}

function writeValue(writer: ByteWriter, plan: FieldPlan, value: unknown): void {
  if (plan.typeCode === TypeCode.array) writeArray(writer, plan, value as unknown[] | null);
  else if (plan.typeCode === TypeCode.struct) {
    writeStruct(writer, plan.structPlan as StructPlan, value as Record<string, unknown>);
  } else writePrimitive(writer, plan, plan.typeCode, value, plan.nullable);
}

export function checkAbsentField(plan: StructPlan, fieldPlan: FieldPlan, value: unknown): void {
  if (fieldPlan.ignorable || value === undefined || isDefaultValue(fieldPlan.declaration, value)) return;
  throw new UnsupportedVersionError(
    `${plan.name}.${fieldPlan.name} has a non-default value but version ${plan.version} cannot carry it`,
  );
}

function checkUnknownTags(plan: StructPlan, unknown: readonly RawTaggedField[]): void {
  let previousTag = -1;
  for (const field of unknown) {
    if (
      !Number.isInteger(field.tag) ||
      field.tag <= previousTag ||
      plan.tagLookup.has(field.tag) ||
      plan.tagsOfOtherVersions.has(field.tag)
    ) {
      throw new ProtocolError(
        `unknown tagged fields must have ascending tags the struct never declares, got ${field.tag} at version ${plan.version}`,
        `${plan.name}.unknownTaggedFields`,
      );
    }
    previousTag = field.tag;
  }
}

function writeRawTaggedField(writer: ByteWriter, field: RawTaggedField): void {
  writer.writeUnsignedVarint(field.tag).writeUnsignedVarint(field.data.length).writeRaw(field.data);
}

/** How a tagged field's value is written: the plan walker's, or a specialised one. */
export type TaggedValueWriter = (writer: ByteWriter, plan: FieldPlan, value: unknown) => void;

/** Writes the tagged section: non-default known fields and kept unknown ones, merged by tag. */
export function writeTaggedFields(
  writer: ByteWriter,
  plan: StructPlan,
  data: Record<string, unknown>,
  writeTaggedValue: TaggedValueWriter = writeValue,
): void {
  const unknown = (data as TaggedFieldsCarrier).unknownTaggedFields ?? NO_TAGGED_FIELDS;
  if (unknown.length > 0) checkUnknownTags(plan, unknown);
  const tagged = plan.taggedFields;
  let count = unknown.length;
  for (let index = 0; index < tagged.length; index += 1) {
    const fieldPlan = tagged[index] as FieldPlan;
    if (!isDefaultValue(fieldPlan.declaration, data[fieldPlan.name])) count += 1;
  }
  writer.writeUnsignedVarint(count);
  if (count === 0) return;
  let unknownIndex = 0;
  for (let index = 0; index < tagged.length; index += 1) {
    const fieldPlan = tagged[index] as FieldPlan;
    while (unknownIndex < unknown.length && (unknown[unknownIndex] as RawTaggedField).tag < fieldPlan.tag) {
      writeRawTaggedField(writer, unknown[unknownIndex] as RawTaggedField);
      unknownIndex += 1;
    }
    const value = data[fieldPlan.name];
    if (isDefaultValue(fieldPlan.declaration, value)) continue;
    writer.writeUnsignedVarint(fieldPlan.tag);
    const start = writer.reserveSizePrefix();
    try {
      writeTaggedValue(writer, fieldPlan, value);
    } catch (error) {
      throw asWriteError(error, fieldPlan.name);
    }
    writer.commitSizePrefix(start);
  }
  for (; unknownIndex < unknown.length; unknownIndex += 1) {
    writeRawTaggedField(writer, unknown[unknownIndex] as RawTaggedField);
  }
}

/** Encodes one struct following its precompiled plan. */
export function writeStruct(writer: ByteWriter, plan: StructPlan, data: Record<string, unknown>): void {
  const fields = plan.fields;
  for (let index = 0; index < fields.length; index += 1) {
    const fieldPlan = fields[index] as FieldPlan;
    const value = data[fieldPlan.name];
    if (fieldPlan.presence === Presence.inline) {
      try {
        writeValue(writer, fieldPlan, value);
      } catch (error) {
        throw asWriteError(error, fieldPlan.name);
      }
    } else if (fieldPlan.presence === Presence.absent) checkAbsentField(plan, fieldPlan, value);
  }
  if (plan.flexible) writeTaggedFields(writer, plan, data);
}
