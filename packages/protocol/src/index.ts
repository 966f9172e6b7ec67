export { IllegalStateError, invariant } from './errors/illegal-state-error.js';
export { KRaftError } from './errors/kraft-error.js';
export { ProtocolError } from './errors/protocol-error.js';
export { UnsupportedVersionError } from './errors/unsupported-version-error.js';
export { ByteReader } from './primitives/byte-reader.js';
export { ByteWriter, sizeOfUnsignedVarint, sizeOfVarint } from './primitives/byte-writer.js';
export { Uuid } from './primitives/uuid.js';
