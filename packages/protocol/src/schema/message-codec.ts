import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { ByteReader } from '../primitives/byte-reader.js';
import { ByteWriter } from '../primitives/byte-writer.js';
import type { FieldMap, StructData, StructDeclaration } from './field-declaration.js';
import { withOuterField } from './field-errors.js';
import { type StructCodec, StructCodecCache } from './struct-codec.js';
import { compileMessagePlan, createDefaultStruct, type StructPlan } from './struct-plan.js';
import { VersionRange } from './version-range.js';

/** Below this size, copying a byte string into the output is cheaper than an extra chunk. */
export const DEFAULT_ZERO_COPY_THRESHOLD_BYTES = 16 * 1024;

/** A message (request, response, record or header) as declared with the schema DSL. */
export interface MessageDeclaration<F extends FieldMap> {
  readonly name: string;
  /** Api key of a request/response, or record type of a metadata record. */
  readonly apiKey?: number;
  readonly validVersions: string;
  readonly flexibleVersions: string;
  readonly fields: F;
}

/**
 * Reads and writes one message at every version it has. Each version is compiled once, on
 * first use, into a flat plan and then into a codec specialised for it (ADR 0032).
 *
 * @example
 * ```ts
 * const request = VoteRequest.defaults({ clusterId: 'cluster-1', voterId: 2 });
 * const body = VoteRequest.write(request, 2);
 * VoteRequest.read(body, 2).voterId; // 2
 * ```
 */
export class MessageCodec<T> {
  readonly name: string;
  readonly apiKey: number | undefined;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly declaration: StructDeclaration<FieldMap>;
  private readonly plans: (StructPlan | undefined)[] = [];
  private readonly codecs: (StructCodec | undefined)[] = [];
  private readonly structCodecs = new StructCodecCache();

  constructor(declaration: MessageDeclaration<FieldMap>) {
    this.name = declaration.name;
    this.apiKey = declaration.apiKey;
    this.validVersions = VersionRange.parse(declaration.validVersions);
    this.flexibleVersions = VersionRange.parse(declaration.flexibleVersions);
    this.declaration = { name: declaration.name, fields: declaration.fields };
  }

  get lowestVersion(): number {
    return this.validVersions.lowest;
  }

  get highestVersion(): number {
    return this.validVersions.highest;
  }

  /**
   * Whether `version` is a flexible version (KIP-482): compact strings, bytes and arrays, and a
   * tagged-field section after each struct.
   */
  isFlexible(version: number): boolean {
    return this.flexibleVersions.contains(version);
  }

  /** The compiled plan of `version`, built and cached on first use. */
  planFor(version: number): StructPlan {
    const cached = this.plans[version];
    if (cached !== undefined) return cached;
    if (!Number.isInteger(version) || !this.validVersions.contains(version)) {
      throw new UnsupportedVersionError(
        `${this.name} has no version ${version} (valid: ${this.validVersions})`,
      );
    }
    const plan = compileMessagePlan(this.declaration, version, this.flexibleVersions);
    this.plans[version] = plan;
    return plan;
  }

  /** The specialised codec of `version`, built and cached on first use. */
  private codecFor(version: number): StructCodec {
    const cached = this.codecs[version];
    if (cached !== undefined) return cached;
    const codec = this.structCodecs.codecFor(this.planFor(version));
    this.codecs[version] = codec;
    return codec;
  }

  /** Decodes a whole body; bytes left over after the message are an error. */
  read(buffer: Buffer, version: number): T {
    const reader = new ByteReader(buffer);
    const data = this.readFrom(reader, version);
    if (reader.remaining() !== 0) {
      throw new ProtocolError(`${reader.remaining()} bytes left after the message`, this.name);
    }
    return data;
  }

  /** Decodes the message at the reader's position, leaving the reader after it. */
  readFrom(reader: ByteReader, version: number): T {
    const codec = this.codecFor(version);
    try {
      return codec.read(reader) as T;
    } catch (error) {
      throw withOuterField(error, this.name);
    }
  }

  /** Encodes the body at `version`; the result is a view of a fresh buffer. */
  write(data: T, version: number): Buffer {
    const writer = new ByteWriter();
    this.writeTo(writer, data, version);
    return writer.toBuffer();
  }

  /**
   * Encodes the body as chunks for a vectored write: byte and record fields of at least
   * `zeroCopyThresholdBytes` are referenced, not copied (a Fetch response's batches).
   */
  writeChunks(
    data: T,
    version: number,
    zeroCopyThresholdBytes = DEFAULT_ZERO_COPY_THRESHOLD_BYTES,
  ): Buffer[] {
    const writer = new ByteWriter().gatherLargeBytes(zeroCopyThresholdBytes);
    this.writeTo(writer, data, version);
    return writer.toChunks();
  }

  /**
   * Encodes the body at `version` onto `writer`, after what it holds already (a frame's size
   * prefix and header).
   *
   * @throws {@link UnsupportedVersionError} for a version the message lacks, a null where the
   * version does not allow one, or a field set to a non-default value at a version that cannot
   * carry it (unless the field is ignorable).
   * @throws {@link ProtocolError} naming the field path for a value that cannot be encoded (a
   * string over 32767 bytes, a number out of its type's range, badly ordered unknown tags).
   */
  writeTo(writer: ByteWriter, data: T, version: number): void {
    const codec = this.codecFor(version);
    try {
      codec.write(writer, data as Record<string, unknown>);
    } catch (error) {
      throw withOuterField(error, this.name);
    }
  }

  /** Data with every field at its schema default, then `overrides` applied on top. */
  defaults(overrides?: Partial<T>): T {
    const data = createDefaultStruct(this.declaration) as T;
    return overrides === undefined ? data : { ...data, ...overrides };
  }
}

/** Declares a message with the schema DSL; its data type is inferred from the fields. */
export function defineMessage<F extends FieldMap>(
  declaration: MessageDeclaration<F>,
): MessageCodec<StructData<F>> {
  return new MessageCodec<StructData<F>>(declaration);
}

/** The decoded data type of a codec: `MessageData<typeof VoteRequest>`. */
export type MessageData<C> = C extends MessageCodec<infer T> ? T : never;

/** Builds default-filled data for any struct declaration (array elements, nested structs). */
export function structDefaults<F extends FieldMap>(
  declaration: StructDeclaration<F>,
  overrides?: Partial<StructData<F>>,
): StructData<F> {
  const data = createDefaultStruct(declaration) as StructData<F>;
  return overrides === undefined ? data : { ...data, ...overrides };
}
