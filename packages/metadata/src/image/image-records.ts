import type { MessageData } from '@kraft/protocol';
import {
  METADATA_RECORD_CODECS,
  type MetadataRecordCodecs,
  type MetadataRecordTypeId,
} from '../records/metadata-record-type.js';
import { type ApiMessageAndVersionOf, apiMessageAndVersion } from '../serde/api-message-and-version.js';

/**
 * A record at the highest version this package declares for its type. Every field an image holds
 * exists at that version, so nothing is dropped on the way to a snapshot.
 */
export function latestRecord<K extends MetadataRecordTypeId>(
  recordType: K,
  data: MessageData<MetadataRecordCodecs[K]>,
): ApiMessageAndVersionOf<K> {
  return apiMessageAndVersion(recordType, METADATA_RECORD_CODECS[recordType].highestVersion, data);
}

/** Keys of a map in a canonical order, so equal images write equal record sequences. */
export function sortedKeys<K extends number | string>(keys: Iterable<K>): K[] {
  return [...keys].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
}
