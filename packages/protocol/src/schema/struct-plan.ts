import { IllegalStateError } from '../errors/illegal-state-error.js';
import { Uuid } from '../primitives/uuid.js';
import type {
  AnyFieldDeclaration,
  ArrayElementPrimitive,
  EntityType,
  FieldMap,
  FieldType,
  StructDeclaration,
  TaggedFieldsCarrier,
} from './field-declaration.js';
import { VersionRange } from './version-range.js';

/** Numeric type codes, so the reader and writer switch on small integers. */
export const TypeCode = {
  bool: 0,
  int8: 1,
  int16: 2,
  uint16: 3,
  int32: 4,
  int64: 5,
  float64: 6,
  uuid: 7,
  string: 8,
  bytes: 9,
  records: 10,
  array: 11,
  struct: 12,
} as const satisfies Record<FieldType, number>;

export const Presence = { absent: 0, inline: 1, tagged: 2 } as const;

/**
 * Kafka's limit on a string field, in bytes, whatever its length encoding: its generated writers
 * refuse more, and its readers refuse a longer compact length (a classic int16 cannot exceed it).
 */
export const MAX_STRING_BYTES = 0x7fff;

/** One field of a struct at one version: everything the reader and writer need, precomputed. */
export interface FieldPlan {
  readonly name: string;
  readonly structName: string;
  readonly typeCode: number;
  readonly presence: number;
  readonly tag: number;
  readonly nullable: boolean;
  /** Compact (flexible) length encodings for strings, bytes and arrays. */
  readonly compact: boolean;
  readonly ignorable: boolean;
  readonly declaration: AnyFieldDeclaration;
  /** For primitives: the default; arrays and structs build a fresh default on demand. */
  readonly defaultValue: unknown;
  /** Array element type code (for arrays of primitives or structs). */
  readonly elementTypeCode: number;
  /** Plan of a struct field or of an array's struct elements. */
  readonly structPlan: StructPlan | undefined;
  /** Fewest bytes one element of this array can take, to reject impossible counts early. */
  readonly minElementBytes: number;
}

export interface StructPlan {
  readonly name: string;
  readonly version: number;
  readonly declaration: StructDeclaration<FieldMap>;
  readonly fields: readonly FieldPlan[];
  /** Fields in the tagged section at this version, in ascending tag order. */
  readonly taggedFields: readonly FieldPlan[];
  readonly tagLookup: ReadonlyMap<number, FieldPlan>;
  /**
   * Tags the struct gives a field at other versions only. Kafka's generated readers refuse them
   * ("Tag N is not valid for version V") instead of keeping them as unknown tagged fields.
   */
  readonly tagsOfOtherVersions: ReadonlySet<number>;
  readonly flexible: boolean;
  readonly minSizeBytes: number;
}

const FIXED_SIZES: Partial<Record<FieldType, number>> = {
  bool: 1,
  int8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  int64: 8,
  float64: 8,
  uuid: 16,
};

const ZERO_VALUES: Partial<Record<FieldType, unknown>> = {
  bool: false,
  int8: 0,
  int16: 0,
  uint16: 0,
  int32: 0,
  int64: 0n,
  float64: 0,
  uuid: Uuid.ZERO,
  string: '',
};

const EMPTY_BUFFER = Buffer.alloc(0);

/** The default of a primitive field: its explicit schema default, else the type's zero. */
function primitiveDefault(declaration: AnyFieldDeclaration): unknown {
  if (declaration.defaultValue !== undefined) return declaration.defaultValue;
  if (declaration.type === 'bytes' || declaration.type === 'records') {
    // Kafka leaves records null by default; nullable bytes likewise default to an empty array.
    return declaration.type === 'records' && declaration.options.nullableVersions !== undefined
      ? null
      : EMPTY_BUFFER;
  }
  return ZERO_VALUES[declaration.type];
}

/** A fresh default value for any field (arrays and structs are new objects each time). */
export function createDefaultValue(declaration: AnyFieldDeclaration): unknown {
  if (declaration.type === 'array') return declaration.defaultValue === null ? null : [];
  if (declaration.type === 'struct')
    return createDefaultStruct(declaration.struct as StructDeclaration<FieldMap>);
  return primitiveDefault(declaration);
}

/** A struct with every field at its default, in declaration order (one stable object shape). */
export function createDefaultStruct(declaration: StructDeclaration<FieldMap>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const name in declaration.fields) {
    data[name] = createDefaultValue(declaration.fields[name] as AnyFieldDeclaration);
  }
  return data;
}

function isDefaultPrimitive(declaration: AnyFieldDeclaration, value: unknown): boolean {
  const defaultValue = primitiveDefault(declaration);
  if (value === defaultValue) return true;
  if (value === null || defaultValue === null) return false;
  if (declaration.type === 'uuid') return (value as Uuid).equals(defaultValue as Uuid);
  if (declaration.type === 'bytes' || declaration.type === 'records') {
    return (value as Buffer).length === 0 && (defaultValue as Buffer).length === 0;
  }
  return false;
}

/**
 * Kafka's "is this the default" test, which decides whether a tagged field is written and
 * whether a field missing from a version may be dropped: arrays are default when empty (or
 * null when their default is null), structs when every field is default.
 */
export function isDefaultValue(declaration: AnyFieldDeclaration, value: unknown): boolean {
  if (declaration.type === 'array') {
    if (declaration.defaultValue === null) return value === null;
    return value !== null && (value as unknown[]).length === 0;
  }
  if (declaration.type === 'struct') {
    return isDefaultStruct(
      declaration.struct as StructDeclaration<FieldMap>,
      value as Record<string, unknown>,
    );
  }
  return isDefaultPrimitive(declaration, value);
}

export function isDefaultStruct(
  declaration: StructDeclaration<FieldMap>,
  value: Record<string, unknown>,
): boolean {
  const unknownTagged = (value as TaggedFieldsCarrier).unknownTaggedFields;
  if (unknownTagged !== undefined && unknownTagged.length > 0) return false;
  for (const name in declaration.fields) {
    if (!isDefaultValue(declaration.fields[name] as AnyFieldDeclaration, value[name])) return false;
  }
  return true;
}

function minSizeOf(
  type: FieldType | ArrayElementPrimitive,
  compact: boolean,
  plan: StructPlan | undefined,
): number {
  const fixed = FIXED_SIZES[type as FieldType];
  if (fixed !== undefined) return fixed;
  if (type === 'struct') return plan?.minSizeBytes ?? 0;
  if (type === 'string') return compact ? 1 : 2;
  return compact ? 1 : 4; // bytes, records, arrays
}

/** The value type each entity type must have, as Kafka's generator checks it. */
const ENTITY_VALUE_TYPES: Record<EntityType, FieldType> = {
  brokerId: 'int32',
  topicName: 'string',
  producerId: 'int64',
  transactionalId: 'string',
  groupId: 'string',
};

function checkEntityType(structName: string, name: string, declaration: AnyFieldDeclaration): void {
  const entityType = declaration.options.entityType;
  if (entityType === undefined) return;
  const valueType = declaration.type === 'array' ? declaration.element : declaration.type;
  if (valueType !== ENTITY_VALUE_TYPES[entityType]) {
    throw new IllegalStateError(
      `${structName}.${name} is a ${entityType} but holds ${String(typeof valueType === 'object' ? 'structs' : valueType)}`,
    );
  }
}

interface CompileContext {
  readonly version: number;
  readonly flexible: boolean;
  readonly messageFlexibleVersions: VersionRange;
}

function compileField(
  name: string,
  structName: string,
  declaration: AnyFieldDeclaration,
  context: CompileContext,
): FieldPlan {
  const { version } = context;
  const options = declaration.options;
  const versions = VersionRange.parse(options.versions);
  const taggedVersions = VersionRange.parse(options.taggedVersions ?? 'none');
  const nullable = VersionRange.parse(options.nullableVersions ?? 'none').contains(version);
  const fieldFlexible =
    options.flexibleVersions === undefined
      ? context.flexible
      : context.flexible && VersionRange.parse(options.flexibleVersions).contains(version);
  if (!taggedVersions.isEmpty() && options.tag === undefined) {
    throw new IllegalStateError(`${structName}.${name} has taggedVersions but no tag`);
  }
  checkEntityType(structName, name, declaration);
  if (declaration.defaultValue === null && options.nullableVersions === undefined) {
    throw new IllegalStateError(`${structName}.${name} defaults to null but is never nullable`);
  }
  let presence: number = Presence.absent;
  if (versions.contains(version)) {
    presence = taggedVersions.contains(version) ? Presence.tagged : Presence.inline;
  }
  if (presence === Presence.tagged && !context.flexible) {
    throw new IllegalStateError(`${structName}.${name} is tagged at non-flexible version ${version}`);
  }
  let structPlan: StructPlan | undefined;
  let elementTypeCode = -1;
  let minElementBytes = 0;
  const element = declaration.element;
  if (declaration.type === 'struct') {
    structPlan = compileStructPlan(declaration.struct as StructDeclaration<FieldMap>, context);
  } else if (declaration.type === 'array' && element !== undefined) {
    if (typeof element === 'string') {
      elementTypeCode = TypeCode[element];
      minElementBytes = minSizeOf(element, fieldFlexible, undefined);
    } else {
      structPlan = compileStructPlan(element, context);
      elementTypeCode = TypeCode.struct;
      minElementBytes = structPlan.minSizeBytes;
    }
  }
  return {
    name,
    structName,
    typeCode: TypeCode[declaration.type],
    presence,
    tag: options.tag ?? -1,
    nullable,
    compact: fieldFlexible,
    ignorable: options.ignorable === true,
    declaration,
    defaultValue:
      declaration.type === 'array' || declaration.type === 'struct'
        ? undefined
        : primitiveDefault(declaration),
    elementTypeCode,
    structPlan,
    minElementBytes,
  };
}

/** Compiles one struct at one version into a flat plan; done once per message version. */
export function compileStructPlan(
  declaration: StructDeclaration<FieldMap>,
  context: CompileContext,
): StructPlan {
  const fields: FieldPlan[] = [];
  for (const name in declaration.fields) {
    fields.push(
      compileField(name, declaration.name, declaration.fields[name] as AnyFieldDeclaration, context),
    );
  }
  const taggedFields = fields
    .filter((plan) => plan.presence === Presence.tagged)
    .sort((a, b) => a.tag - b.tag);
  const tagLookup = new Map<number, FieldPlan>();
  for (const plan of taggedFields) {
    if (tagLookup.has(plan.tag)) {
      throw new IllegalStateError(
        `${declaration.name} declares tag ${plan.tag} twice at version ${context.version}`,
      );
    }
    tagLookup.set(plan.tag, plan);
  }
  const tagsOfOtherVersions = new Set<number>();
  for (const plan of fields) {
    const options = plan.declaration.options;
    if (options.tag === undefined || tagLookup.has(options.tag)) continue;
    const tagged = VersionRange.parse(options.taggedVersions ?? 'none');
    if (tagged.intersects(VersionRange.parse(options.versions))) tagsOfOtherVersions.add(options.tag);
  }
  let minSizeBytes = context.flexible ? 1 : 0;
  for (const plan of fields) {
    if (plan.presence !== Presence.inline) continue;
    const type = plan.declaration.type;
    minSizeBytes += minSizeOf(type, plan.compact, plan.structPlan);
  }
  return {
    name: declaration.name,
    version: context.version,
    declaration,
    fields,
    taggedFields,
    tagLookup,
    tagsOfOtherVersions,
    flexible: context.flexible,
    minSizeBytes,
  };
}

export function compileMessagePlan(
  declaration: StructDeclaration<FieldMap>,
  version: number,
  flexibleVersions: VersionRange,
): StructPlan {
  return compileStructPlan(declaration, {
    version,
    flexible: flexibleVersions.contains(version),
    messageFlexibleVersions: flexibleVersions,
  });
}
