import { Map as PersistentMap } from 'immutable';
import type { DelegationTokenRecordData } from '../records/delegation-token-record.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/** A delegation token's owner, renewers and timestamps (Kafka's `TokenInformation`). */
export type DelegationTokenData = Readonly<DelegationTokenRecordData>;

/** Delegation tokens by token id (Kafka's `DelegationTokenImage`). */
export class DelegationTokenImage {
  static readonly EMPTY = new DelegationTokenImage(PersistentMap());

  readonly tokens: PersistentMap<string, DelegationTokenData>;

  constructor(tokens: PersistentMap<string, DelegationTokenData>) {
    this.tokens = tokens;
  }

  /** Whether the image holds no delegation token. */
  isEmpty(): boolean {
    return this.tokens.size === 0;
  }

  /** The DelegationTokenRecords that rebuild this part on the empty image, in token id order. */
  *records(): Generator<ApiMessageAndVersion> {
    for (const tokenId of sortedKeys(this.tokens.keys())) {
      yield latestRecord(
        MetadataRecordType.DELEGATION_TOKEN_RECORD,
        this.tokens.get(tokenId) as DelegationTokenData,
      );
    }
  }
}
