import { ProtocolError } from '../errors/protocol-error.js';
import { ByteReader } from '../primitives/byte-reader.js';
import type { RawTaggedField, TaggedFieldsCarrier } from './field-declaration.js';
import { nullReadError, withOuterField } from './field-errors.js';
import {
  createDefaultValue,
  type FieldPlan,
  MAX_STRING_BYTES,
  Presence,
  type StructPlan,
  TypeCode,
} from './struct-plan.js';

function readPrimitive(reader: ByteReader, typeCode: number, compact: boolean, nullable: boolean): unknown {
  switch (typeCode) {
    case TypeCode.bool:
      return reader.readBool();
    case TypeCode.int8:
      return reader.readInt8();
    case TypeCode.int16:
      return reader.readInt16();
    case TypeCode.uint16:
      return reader.readUint16();
    case TypeCode.int32:
      return reader.readInt32();
    case TypeCode.int64:
      return reader.readInt64();
    case TypeCode.float64:
      return reader.readFloat64();
    case TypeCode.uuid:
      return reader.readUuid();
    case TypeCode.string: {
      const value = compact
        ? reader.readCompactNullableString(MAX_STRING_BYTES)
        : reader.readNullableString();
      if (value === null && !nullable) throw nullReadError('string');
      return value;
    }
    default: {
      // bytes and records: zero-copy views of the input.
      const value = compact ? reader.readCompactNullableBytes() : reader.readNullableBytes();
      if (value === null && !nullable) throw nullReadError('bytes');
      return value;
    }
  }
}

function readArray(reader: ByteReader, plan: FieldPlan): unknown[] | null {
  const count = reader.readArrayLength(plan.compact, plan.minElementBytes);
  if (count === null) {
    if (!plan.nullable) throw nullReadError('array');
    return null;
  }
  const items: unknown[] = [];
  const elementPlan = plan.structPlan;
  for (let index = 0; index < count; index += 1) {
    try {
      items.push(
        elementPlan === undefined
          ? readPrimitive(reader, plan.elementTypeCode, plan.compact, false)
          : readStruct(reader, elementPlan),
      );
    } catch (error) {
      throw withOuterField(error, `[${index}]`);
    }
  }
  return items;
}

function readValue(reader: ByteReader, plan: FieldPlan): unknown {
  if (plan.typeCode === TypeCode.array) return readArray(reader, plan);
  if (plan.typeCode === TypeCode.struct) return readStruct(reader, plan.structPlan as StructPlan);
  return readPrimitive(reader, plan.typeCode, plan.compact, plan.nullable);
}

/** How a tagged field's value is read from its window: the plan walker's, or a specialised one. */
export type TaggedValueReader = (window: ByteReader, plan: FieldPlan) => unknown;

function readTaggedField(
  reader: ByteReader,
  plan: FieldPlan,
  size: number,
  readTaggedValue: TaggedValueReader,
): unknown {
  const window = new ByteReader(reader.buffer, reader.offset, reader.offset + size);
  const value = readTaggedValue(window, plan);
  if (window.remaining() !== 0) {
    throw new ProtocolError(`tagged field has ${window.remaining()} unread bytes of ${size}`);
  }
  reader.offset += size;
  return value;
}

/**
 * Reads the tagged section: known tags decode into their fields, unknown ones are kept raw.
 * Tags must be strictly ascending (Kafka always writes them so) which also rules out duplicates.
 */
export function readTaggedFields(
  reader: ByteReader,
  plan: StructPlan,
  data: Record<string, unknown>,
  readTaggedValue: TaggedValueReader = readValue,
): void {
  const count = reader.readUnsignedVarint();
  let previousTag = -1;
  let unknown: RawTaggedField[] | undefined;
  for (let index = 0; index < count; index += 1) {
    const tag = reader.readUnsignedVarint();
    if (tag <= previousTag) throw new ProtocolError(`tag ${tag} follows tag ${previousTag}`, '_tagged');
    previousTag = tag;
    const size = reader.readUnsignedVarint();
    if (size > reader.remaining()) {
      throw new ProtocolError(
        `tagged field of ${size} bytes exceeds the ${reader.remaining()} that remain`,
        `_tagged`,
        { truncated: true },
      );
    }
    const fieldPlan = plan.tagLookup.get(tag);
    if (fieldPlan === undefined && plan.tagsOfOtherVersions.has(tag)) {
      throw new ProtocolError(`tag ${tag} is not valid for version ${plan.version}`, '_tagged');
    }
    if (fieldPlan === undefined) {
      unknown ??= [];
      unknown.push({ tag, data: reader.readSlice(size) });
      continue;
    }
    try {
      data[fieldPlan.name] = readTaggedField(reader, fieldPlan, size, readTaggedValue);
    } catch (error) {
      throw withOuterField(error, fieldPlan.name);
    }
  }
  if (unknown !== undefined) (data as TaggedFieldsCarrier).unknownTaggedFields = unknown;
}

/** Decodes one struct following its precompiled plan; absent fields take their defaults. */
export function readStruct(reader: ByteReader, plan: StructPlan): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const fields = plan.fields;
  for (let index = 0; index < fields.length; index += 1) {
    const fieldPlan = fields[index] as FieldPlan;
    if (fieldPlan.presence === Presence.inline) {
      try {
        data[fieldPlan.name] = readValue(reader, fieldPlan);
      } catch (error) {
        throw withOuterField(error, fieldPlan.name);
      }
    } else if (fieldPlan.defaultValue !== undefined) {
      data[fieldPlan.name] = fieldPlan.defaultValue;
    } else {
      data[fieldPlan.name] = createDefaultValue(fieldPlan.declaration);
    }
  }
  if (plan.flexible) readTaggedFields(reader, plan, data);
  return data;
}
