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
  bool: (options: BoolOptions): FieldDeclaration<boolean> => declare('bool', options),
  int8: (options: NumberOptions): FieldDeclaration<number> => declare('int8', options),
  int16: (options: NumberOptions): FieldDeclaration<number> => declare('int16', options),
  uint16: (options: NumberOptions): FieldDeclaration<number> => declare('uint16', options),
  int32: (options: NumberOptions): FieldDeclaration<number> => declare('int32', options),
  int64: (options: BigintOptions): FieldDeclaration<bigint> => declare('int64', options),
  float64: (options: NumberOptions): FieldDeclaration<number> => declare('float64', options),
  uuid: (options: FieldOptions): FieldDeclaration<PrimitiveValues['uuid']> => declare('uuid', options),
  string: <O extends StringOptions>(options: O): FieldDeclaration<Nullable<O, string>> =>
    declare('string', options),
  bytes: <O extends NullableDefaultOptions>(options: O): FieldDeclaration<Nullable<O, Buffer>> =>
    declare('bytes', options),
  /** Record batches, kept as a zero-copy view of the input. */
  records: <O extends NullableDefaultOptions>(options: O): FieldDeclaration<Nullable<O, Buffer>> =>
    declare('records', options),
  array: <E extends ArrayElementPrimitive | StructDeclaration<FieldMap>, O extends NullableDefaultOptions>(
    element: E,
    options: O,
  ): FieldDeclaration<Nullable<O, ElementValue<E>[]>> =>
    declare('array', options, { element, struct: undefined }),
  struct: <F extends FieldMap>(
    declaration: StructDeclaration<F>,
    options: FieldOptions,
  ): FieldDeclaration<StructData<F>> =>
    declare('struct', options, { element: undefined, struct: declaration as StructDeclaration<FieldMap> }),
};
