import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { type FieldPlan, MAX_STRING_BYTES } from './struct-plan.js';

// The per-field rules and error texts shared by the specialised codecs (struct-codec.ts), the plan
// walkers (struct-reader.ts, struct-writer.ts) and the JSON converter, so they fail alike.

/** A ProtocolError gains `segment` as the outer part of its field path; other errors pass as they are. */
export function withOuterField(error: unknown, segment: string): unknown {
  return ProtocolError.isProtocolError(error) ? error.withOuterField(segment) : error;
}

/**
 * Node's own errors for values a field cannot hold (an int16 of 70000, a number where a bigint
 * belongs) become `ProtocolError`s naming the field; our typed errors gain the field path.
 */
export function asWriteError(error: unknown, segment: string): unknown {
  if (ProtocolError.isProtocolError(error)) return error.withOuterField(segment);
  if (error instanceof RangeError || error instanceof TypeError) {
    return new ProtocolError(`cannot encode value: ${error.message}`, segment, { cause: error });
  }
  return error;
}

/** A null to write where the field, at this version, takes none. */
export function failNull(plan: FieldPlan, what: string): never {
  throw new UnsupportedVersionError(
    `${plan.structName}.${plan.name}: null ${what} is not allowed at version of this message`,
  );
}

const NULL_READ_TEXTS = {
  string: 'null in a non-nullable string',
  bytes: 'null in non-nullable bytes',
  array: 'null in a non-nullable array',
} as const;

/** A null read where the field takes none. */
export function nullReadError(what: keyof typeof NULL_READ_TEXTS): ProtocolError {
  return new ProtocolError(NULL_READ_TEXTS[what]);
}

/**
 * Kafka's generated writers refuse a string over 0x7fff bytes in every encoding, compact too.
 * A string of at most a third of that many UTF-16 units cannot exceed it, so most strings are
 * never measured.
 */
export function checkStringSize(value: string): void {
  if (value.length > MAX_STRING_BYTES / 3 && Buffer.byteLength(value) > MAX_STRING_BYTES) {
    throw new ProtocolError(`string of ${Buffer.byteLength(value)} bytes exceeds ${MAX_STRING_BYTES}`);
  }
}
