import type { MessageCodec } from '@kraft/protocol';
import { messageArbitrary } from '@kraft/protocol/testing';
import fc from 'fast-check';
import {
  ALL_METADATA_RECORD_TYPES,
  type MetadataRecordTypeId,
  metadataRecordCodec,
} from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';

/** Which records `apiMessageAndVersionArbitrary` draws. */
export interface ApiMessageAndVersionArbitraryOptions {
  /** The record types to draw from; every type by default. */
  readonly recordTypes?: readonly MetadataRecordTypeId[];
}

/**
 * Random valid metadata records: a type, one of its versions, and data generated from the
 * declaration at that version (nulls where nullable, tagged and unknown tagged fields).
 */
export function apiMessageAndVersionArbitrary(
  options: ApiMessageAndVersionArbitraryOptions = {},
): fc.Arbitrary<ApiMessageAndVersion> {
  const recordTypes = options.recordTypes ?? ALL_METADATA_RECORD_TYPES;
  return fc.constantFrom(...recordTypes).chain((recordType) => {
    const codec = metadataRecordCodec(recordType) as MessageCodec<unknown>;
    return fc
      .integer({ min: codec.lowestVersion, max: codec.highestVersion })
      .chain((version) =>
        messageArbitrary(codec, version).map(
          (data) => ({ recordType, version, data }) as ApiMessageAndVersion,
        ),
      );
  });
}
