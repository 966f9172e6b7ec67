import type { Uuid } from '../primitives/uuid.js';

/** Wire types a field can have. Arrays and structs nest further declarations. */
export type PrimitiveType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'int64'
  | 'float64'
  | 'uuid'
  | 'string'
  | 'bytes'
  | 'records';

export type FieldType = PrimitiveType | 'array' | 'struct';

/** Element types an array of primitives may hold (Kafka's `[]int32`, `[]uuid`, `[]string`...). */
export type ArrayElementPrimitive = 'int8' | 'int16' | 'int32' | 'int64' | 'uuid' | 'string';

/** The JavaScript value each primitive decodes to. */
export interface PrimitiveValues {
  bool: boolean;
  int8: number;
  int16: number;
  uint16: number;
  int32: number;
  int64: bigint;
  float64: number;
  uuid: Uuid;
  string: string;
  bytes: Buffer;
  records: Buffer;
}

/**
 * What a field identifies, as Kafka's schemas tag it (`entityType`). It changes no byte on the
 * wire; Kafka's generator checks it against the field's type, and tools use it to know that an
 * int32 is a broker id or a string a topic name.
 */
export type EntityType = 'brokerId' | 'topicName' | 'producerId' | 'transactionalId' | 'groupId';

/**
 * How a field appears across versions, in Kafka's range notation (`0+`, `1-3`, `none`):
 * - `versions`: where the field exists;
 * - `nullableVersions`: where null is allowed;
 * - `taggedVersions` + `tag`: where it lives in the tagged section instead of inline;
 * - `ignorable`: a non-default value is dropped, not refused, at a version without the field;
 * - `flexibleVersions`: overrides the message's compact encoding for this field (RequestHeader
 *   ClientId keeps its int16 length in flexible versions);
 * - `entityType`: what the value identifies (no effect on the bytes);
 * - `mapKey`: the field keys its struct within an array (Kafka generates a keyed collection; the
 *   bytes are an ordinary array, and this codec keeps arrays).
 */
export interface FieldOptions {
  readonly versions: string;
  readonly nullableVersions?: string;
  readonly taggedVersions?: string;
  readonly tag?: number;
  readonly ignorable?: boolean;
  readonly flexibleVersions?: string;
  readonly entityType?: EntityType;
  readonly mapKey?: boolean;
}

/** Unknown tagged field kept from a read so it is written back out unchanged. */
export interface RawTaggedField {
  readonly tag: number;
  readonly data: Buffer;
}

/** Every decoded struct may carry the tagged fields its schema does not know. */
export interface TaggedFieldsCarrier {
  unknownTaggedFields?: RawTaggedField[];
}

/**
 * One field of a struct. `T` is only a type-level marker: the decoded JavaScript type, so that
 * message data types are inferred from the declarations instead of written twice.
 */
export interface FieldDeclaration<T> {
  readonly type: FieldType;
  readonly options: FieldOptions;
  /** Explicit schema default for primitives (`null` for nullable ones); undefined = the type's zero. */
  readonly defaultValue: unknown;
  /** Element of an array field: a primitive type name or a struct. */
  readonly element: ArrayElementPrimitive | StructDeclaration<FieldMap> | undefined;
  /** The struct of a struct field. */
  readonly struct: StructDeclaration<FieldMap> | undefined;
  readonly valueType?: T;
}

// biome-ignore lint/suspicious/noExplicitAny: the phantom value type must accept every field declaration
export type AnyFieldDeclaration = FieldDeclaration<any>;

/**
 * A message's or struct's fields by name, in wire order: the object literal given to
 * `defineMessage` and `struct`, whose value types the decoded data type is inferred from.
 */
export type FieldMap = { readonly [name: string]: AnyFieldDeclaration };

/** A named struct: the message body itself, an array element, or a nested struct field. */
export interface StructDeclaration<F extends FieldMap> {
  readonly name: string;
  readonly fields: F;
}

/** The plain data a struct decodes to: one property per field, plus unknown tagged fields. */
export type StructData<F extends FieldMap> = {
  -readonly [K in keyof F]: F[K] extends FieldDeclaration<infer T> ? T : never;
} & TaggedFieldsCarrier;
