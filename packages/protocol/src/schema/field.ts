import type {
  ArrayElementPrimitive,
  FieldDeclaration,
  FieldMap,
  FieldOptions,
  FieldType,
  PrimitiveValues,
  StructData,
  StructDeclaration,
} from './field-declaration.js';

type Nullable<O extends FieldOptions, T> = O extends { readonly nullableVersions: string } ? T | null : T;

type ElementValue<E> = E extends ArrayElementPrimitive
  ? PrimitiveValues[E]
  : E extends StructDeclaration<infer F>
    ? StructData<F>
    : never;

interface NumberOptions extends FieldOptions {
  readonly default?: number;
}
interface BigintOptions extends FieldOptions {
  readonly default?: bigint;
}
interface BoolOptions extends FieldOptions {
  readonly default?: boolean;
}
interface StringOptions extends FieldOptions {
  readonly default?: string | null;
}
interface NullableDefaultOptions extends FieldOptions {
  /** Only `null` is meaningful: a nullable array or bytes field whose default is null. */
  readonly default?: null;
}

function declare<T>(
  type: FieldType,
  options: FieldOptions & { readonly default?: unknown },
  extra: Pick<FieldDeclaration<T>, 'element' | 'struct'> = { element: undefined, struct: undefined },
): FieldDeclaration<T> {
  const { default: defaultValue, ...rest } = options;
  return { type, options: rest, defaultValue, element: extra.element, struct: extra.struct };
}

/** Declares a named struct (a message body, an array element or a nested struct). */
export function struct<F extends FieldMap>(name: string, fields: F): StructDeclaration<F> {
  return { name, fields };
}

/**
 * Field builders of the schema DSL. Each mirrors a Kafka schema type; the option names are
 * Kafka's, so a declaration reads like the JSON it was written from.
 */
export const field = {
  /** Kafka's `bool`: one byte on the wire, a boolean in the data. */
  bool: (options: BoolOptions): FieldDeclaration<boolean> => declare('bool', options),
  /** Kafka's `int8`: a signed byte, a number in the data. */
  int8: (options: NumberOptions): FieldDeclaration<number> => declare('int8', options),
  /** Kafka's `int16`: big-endian signed, a number (error codes, api versions). */
  int16: (options: NumberOptions): FieldDeclaration<number> => declare('int16', options),
  /** Kafka's `uint16`: big-endian unsigned, 0..65535 (endpoint ports). */
  uint16: (options: NumberOptions): FieldDeclaration<number> => declare('uint16', options),
  /** Kafka's `int32`: big-endian signed, a number (ids, epochs, sizes). */
  int32: (options: NumberOptions): FieldDeclaration<number> => declare('int32', options),
  /** Kafka's `int64`: big-endian signed, a bigint in the data so no offset loses precision. */
  int64: (options: BigintOptions): FieldDeclaration<bigint> => declare('int64', options),
  /** Kafka's `float64`: a big-endian IEEE 754 double. */
  float64: (options: NumberOptions): FieldDeclaration<number> => declare('float64', options),
  /** Kafka's `uuid`: 16 bytes, a {@link Uuid} in the data (default `Uuid.ZERO`). */
  uuid: (options: FieldOptions): FieldDeclaration<PrimitiveValues['uuid']> => declare('uuid', options),
  /**
   * Kafka's `string`: UTF-8 with an int16 length (compact varint in flexible versions), at most
   * 32767 bytes; `string | null` in the data when `nullableVersions` is given.
   */
  string: <O extends StringOptions>(options: O): FieldDeclaration<Nullable<O, string>> =>
    declare('string', options),
  /**
   * Kafka's `bytes`: an int32 length (compact varint when flexible), a zero-copy Buffer view of
   * the input on read; nullable with `nullableVersions`.
   */
  bytes: <O extends NullableDefaultOptions>(options: O): FieldDeclaration<Nullable<O, Buffer>> =>
    declare('bytes', options),
  /** Record batches, kept as a zero-copy view of the input. */
  records: <O extends NullableDefaultOptions>(options: O): FieldDeclaration<Nullable<O, Buffer>> =>
    declare('records', options),
  /**
   * Kafka's `[]T`: an int32 count (compact varint count + 1 when flexible) then the elements,
   * which are a primitive type name (`'int32'`) or a {@link struct}.
   */
  array: <E extends ArrayElementPrimitive | StructDeclaration<FieldMap>, O extends NullableDefaultOptions>(
    element: E,
    options: O,
  ): FieldDeclaration<Nullable<O, ElementValue<E>[]>> =>
    declare('array', options, { element, struct: undefined }),
  /** A nested struct field (Kafka's field of a struct type), often a tagged one. */
  struct: <F extends FieldMap>(
    declaration: StructDeclaration<F>,
    options: FieldOptions,
  ): FieldDeclaration<StructData<F>> =>
    declare('struct', options, { element: undefined, struct: declaration as StructDeclaration<FieldMap> }),
};
