import { IllegalStateError } from '../errors/illegal-state-error.js';
import { ByteReader } from '../primitives/byte-reader.js';
import { ByteWriter } from '../primitives/byte-writer.js';
import { asWriteError, checkStringSize, failNull, nullReadError, withOuterField } from './field-errors.js';
import {
  createDefaultValue,
  type FieldPlan,
  MAX_STRING_BYTES,
  Presence,
  type StructPlan,
  TypeCode,
} from './struct-plan.js';
import { readStruct, readTaggedFields } from './struct-reader.js';
import { checkAbsentField, writeStruct, writeTaggedFields } from './struct-writer.js';

/**
 * A struct's codec specialised for one version (ADR 0032): built once from its {@link StructPlan},
 * it reads and writes exactly the bytes the plan-walking `readStruct`/`writeStruct` do, with
 * every per-field decision (presence, nullability, compact lengths, element types) taken at
 * build time. The struct body itself is generated code, so that a decoded struct is one object
 * literal of a stable shape and each field is a named property load or store, not a keyed one.
 */
export interface StructCodec {
  read(reader: ByteReader): Record<string, unknown>;
  write(writer: ByteWriter, data: Record<string, unknown>): void;
}

type ValueReader = (reader: ByteReader) => unknown;
type ValueWriter = (writer: ByteWriter, value: unknown) => void;

/** Builds a function from generated source; `Function` unless a test substitutes it. */
export type FunctionFactory = (...parametersAndBody: string[]) => (...args: unknown[]) => unknown;

const defaultFunctionFactory: FunctionFactory = (...parts) =>
  new Function(...parts) as (...args: unknown[]) => unknown;

/**
 * Field names are the only schema text that enters generated code. They come from the
 * declarations in this repository, never from input, and must still be plain identifiers (and
 * not `__proto__`, which an object literal would treat as the prototype).
 */
const PLAIN_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function checkFieldName(plan: StructPlan, name: string): string {
  if (!PLAIN_IDENTIFIER.test(name) || name === '__proto__') {
    throw new IllegalStateError(`${plan.name} has a field named '${name}', which is not a plain identifier`);
  }
  return JSON.stringify(name);
}

/** Reads that need no arguments, called inline from generated code. */
const INLINE_READS: Partial<Record<number, string>> = {
  [TypeCode.bool]: 'readBool',
  [TypeCode.int8]: 'readInt8',
  [TypeCode.int16]: 'readInt16',
  [TypeCode.uint16]: 'readUint16',
  [TypeCode.int32]: 'readInt32',
  [TypeCode.int64]: 'readInt64',
  [TypeCode.float64]: 'readFloat64',
  [TypeCode.uuid]: 'readUuid',
};

const INLINE_WRITES: Partial<Record<number, string>> = {
  [TypeCode.bool]: 'writeBool',
  [TypeCode.int8]: 'writeInt8',
  [TypeCode.int16]: 'writeInt16',
  [TypeCode.uint16]: 'writeUint16',
  [TypeCode.int32]: 'writeInt32',
  [TypeCode.int64]: 'writeInt64',
  [TypeCode.float64]: 'writeFloat64',
  [TypeCode.uuid]: 'writeUuid',
};

function primitiveReader(typeCode: number, compact: boolean, nullable: boolean): ValueReader {
  const inline = INLINE_READS[typeCode];
  if (inline !== undefined) {
    const method = ByteReader.prototype[inline as 'readInt32'];
    return (reader) => method.call(reader);
  }
  if (typeCode === TypeCode.string) {
    if (compact) {
      return nullable
        ? (reader) => reader.readCompactNullableString(MAX_STRING_BYTES)
        : (reader) => {
            const value = reader.readCompactNullableString(MAX_STRING_BYTES);
            if (value === null) throw nullReadError('string');
            return value;
          };
    }
    return nullable
      ? (reader) => reader.readNullableString()
      : (reader) => {
          const value = reader.readNullableString();
          if (value === null) throw nullReadError('string');
          return value;
        };
  }
  // bytes and records: zero-copy views of the input.
  const read = compact
    ? (reader: ByteReader) => reader.readCompactNullableBytes()
    : (reader: ByteReader) => reader.readNullableBytes();
  return nullable
    ? read
    : (reader) => {
        const value = read(reader);
        if (value === null) throw nullReadError('bytes');
        return value;
      };
}

/**
 * Elements of an array go into an array sized from its count: `readArrayLength` has already
 * refused a count whose elements cannot fit in the bytes that remain, so the size is bounded.
 */
function arrayReader(plan: FieldPlan, element: ValueReader): ValueReader {
  const { compact, nullable, minElementBytes } = plan;
  return (reader) => {
    const count = reader.readArrayLength(compact, minElementBytes);
    if (count === null) {
      if (!nullable) throw nullReadError('array');
      return null;
    }
    const items: unknown[] = new Array(count);
    for (let index = 0; index < count; index += 1) {
      try {
        items[index] = element(reader);
      } catch (error) {
        throw withOuterField(error, `[${index}]`);
      }
    }
    return items;
  };
}

function valueReader(plan: FieldPlan, codecs: StructCodecCache): ValueReader {
  if (plan.typeCode === TypeCode.struct) {
    const codec = codecs.codecFor(plan.structPlan as StructPlan);
    return (reader) => codec.read(reader);
  }
  if (plan.typeCode !== TypeCode.array) return primitiveReader(plan.typeCode, plan.compact, plan.nullable);
  if (plan.structPlan === undefined) {
    return arrayReader(plan, primitiveReader(plan.elementTypeCode, plan.compact, false));
  }
  const element = codecs.codecFor(plan.structPlan);
  return arrayReader(plan, (reader) => element.read(reader));
}

function stringWriter(plan: FieldPlan): ValueWriter {
  const { compact, nullable } = plan;
  return (writer, value) => {
    if (value === null) {
      if (!nullable) failNull(plan, 'string');
    } else checkStringSize(value as string);
    if (compact) writer.writeCompactNullableString(value as string | null);
    else writer.writeNullableString(value as string | null);
  };
}

function primitiveWriter(plan: FieldPlan, typeCode: number, nullable: boolean): ValueWriter {
  const inline = INLINE_WRITES[typeCode];
  if (inline !== undefined) {
    const method = ByteWriter.prototype[inline as 'writeInt32'] as (value: unknown) => ByteWriter;
    return (writer, value) => {
      method.call(writer, value);
    };
  }
  if (typeCode === TypeCode.string) return stringWriter({ ...plan, nullable });
  const compact = plan.compact;
  return (writer, value) => {
    if (value === null && !nullable) failNull(plan, 'bytes');
    if (compact) writer.writeCompactNullableBytes(value as Buffer | null);
    else writer.writeNullableBytes(value as Buffer | null);
  };
}

function arrayWriter(plan: FieldPlan, element: ValueWriter): ValueWriter {
  const { compact, nullable } = plan;
  return (writer, value) => {
    if (value === null) {
      if (!nullable) failNull(plan, 'array');
      writer.writeArrayLength(compact, null);
      return;
    }
    const items = value as unknown[];
    writer.writeArrayLength(compact, items.length);
    for (let index = 0; index < items.length; index += 1) {
      try {
        element(writer, items[index]);
      } catch (error) {
        throw asWriteError(error, `[${index}]`);
      }
    }
  };
}

function valueWriter(plan: FieldPlan, codecs: StructCodecCache): ValueWriter {
  if (plan.typeCode === TypeCode.struct) {
    const codec = codecs.codecFor(plan.structPlan as StructPlan);
    return (writer, value) => codec.write(writer, value as Record<string, unknown>);
  }
  if (plan.typeCode !== TypeCode.array) return primitiveWriter(plan, plan.typeCode, plan.nullable);
  if (plan.structPlan === undefined) {
    return arrayWriter(plan, primitiveWriter(plan, plan.elementTypeCode, false));
  }
  const element = codecs.codecFor(plan.structPlan);
  return arrayWriter(plan, (writer, value) => element.write(writer, value as Record<string, unknown>));
}

/**
 * Source of the read function: one object literal in declaration order. `f` tracks the field
 * being read so an error gains its name (-1: the tagged section names its own fields).
 */
function readSource(plan: StructPlan): string {
  const properties: string[] = [];
  plan.fields.forEach((fieldPlan, index) => {
    const key = checkFieldName(plan, fieldPlan.name);
    if (fieldPlan.presence === Presence.inline) {
      const inline = INLINE_READS[fieldPlan.typeCode];
      const read = inline === undefined ? `steps[${index}](reader)` : `reader.${inline}()`;
      properties.push(`${key}: (f = ${index}, ${read})`);
    } else if (fieldPlan.defaultValue !== undefined) {
      properties.push(`${key}: defaults[${index}]`);
    } else {
      properties.push(`${key}: fresh[${index}]()`);
    }
  });
  const tagged = plan.flexible ? 'f = -1;\n    tagged(reader, data);\n' : '';
  return `return function read(reader) {
  let f = -1;
  try {
    const data = {
      ${properties.join(',\n      ')}
    };
    ${tagged}    return data;
  } catch (error) {
    throw f === -1 ? error : onError(error, f);
  }
};`;
}

/** Source of the write function: named loads in wire order, then the tagged section. */
function writeSource(plan: StructPlan): string {
  const statements: string[] = [];
  plan.fields.forEach((fieldPlan, index) => {
    const key = checkFieldName(plan, fieldPlan.name);
    if (fieldPlan.presence === Presence.inline) {
      const inline = INLINE_WRITES[fieldPlan.typeCode];
      const write =
        inline === undefined ? `steps[${index}](writer, data[${key}])` : `writer.${inline}(data[${key}])`;
      statements.push(`f = ${index}; ${write};`);
    } else if (fieldPlan.presence === Presence.absent) {
      statements.push(`f = -1; absent[${index}](data[${key}]);`);
    }
  });
  if (plan.flexible) statements.push('f = -1; tagged(writer, data);');
  return `return function write(writer, data) {
  let f = -1;
  try {
    ${statements.join('\n    ')}
  } catch (error) {
    throw f === -1 ? error : onError(error, f);
  }
};`;
}

function absentCheck(plan: StructPlan, fieldPlan: FieldPlan): (value: unknown) => void {
  return (value) => checkAbsentField(plan, fieldPlan, value);
}

function compileStructCodec(
  plan: StructPlan,
  codecs: StructCodecCache,
  factory: FunctionFactory,
): StructCodec {
  const fields = plan.fields;
  const names = fields.map((fieldPlan) => fieldPlan.name);
  const readSteps = fields.map((fieldPlan) =>
    fieldPlan.presence === Presence.inline ? valueReader(fieldPlan, codecs) : undefined,
  );
  const writeSteps = fields.map((fieldPlan) =>
    fieldPlan.presence === Presence.inline ? valueWriter(fieldPlan, codecs) : undefined,
  );
  const defaults = fields.map((fieldPlan) => fieldPlan.defaultValue);
  const fresh = fields.map((fieldPlan) => () => createDefaultValue(fieldPlan.declaration));
  const absent = fields.map((fieldPlan) => absentCheck(plan, fieldPlan));
  const taggedReaders = new Map(
    plan.taggedFields.map((field) => [field, valueReader(field, codecs)] as const),
  );
  const taggedWriters = new Map(
    plan.taggedFields.map((field) => [field, valueWriter(field, codecs)] as const),
  );
  const readTaggedValue = (window: ByteReader, field: FieldPlan) =>
    (taggedReaders.get(field) as ValueReader)(window);
  const writeTaggedValue = (writer: ByteWriter, field: FieldPlan, value: unknown) =>
    (taggedWriters.get(field) as ValueWriter)(writer, value);
  const read = factory(
    'steps',
    'defaults',
    'fresh',
    'tagged',
    'onError',
    readSource(plan),
  )(
    readSteps,
    defaults,
    fresh,
    (reader: ByteReader, data: Record<string, unknown>) =>
      readTaggedFields(reader, plan, data, readTaggedValue),
    (error: unknown, index: number) => withOuterField(error, names[index] as string),
  ) as StructCodec['read'];
  const write = factory(
    'steps',
    'absent',
    'tagged',
    'onError',
    writeSource(plan),
  )(
    writeSteps,
    absent,
    (writer: ByteWriter, data: Record<string, unknown>) =>
      writeTaggedFields(writer, plan, data, writeTaggedValue),
    (error: unknown, index: number) => asWriteError(error, names[index] as string),
  ) as StructCodec['write'];
  return { read, write };
}

/** The plan-walking reader and writer, for hosts that forbid code generation from strings. */
function genericStructCodec(plan: StructPlan): StructCodec {
  return {
    read: (reader) => readStruct(reader, plan),
    write: (writer, data) => writeStruct(writer, plan, data),
  };
}

/**
 * Specialised codecs of a message version's plans, nested structs included, each built once.
 * When the host refuses code generation (`--disallow-code-generation-from-strings`, an
 * `EvalError`), every struct falls back to the plan-walking reader and writer: same bytes.
 */
export class StructCodecCache {
  private readonly codecs = new Map<StructPlan, StructCodec>();
  private generate: boolean;

  constructor(private readonly factory: FunctionFactory = defaultFunctionFactory) {
    this.generate = true;
  }

  /** Whether the codecs built so far are generated ones (false after a refused generation). */
  get generated(): boolean {
    return this.generate;
  }

  codecFor(plan: StructPlan): StructCodec {
    const cached = this.codecs.get(plan);
    if (cached !== undefined) return cached;
    let codec: StructCodec;
    if (this.generate) {
      try {
        codec = compileStructCodec(plan, this, this.factory);
      } catch (error) {
        if (!(error instanceof EvalError)) throw error;
        this.generate = false;
        codec = genericStructCodec(plan);
      }
    } else {
      codec = genericStructCodec(plan);
    }
    this.codecs.set(plan, codec);
    return codec;
  }
}
