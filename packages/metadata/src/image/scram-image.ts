import { Map as PersistentMap } from 'immutable';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { UserScramCredentialRecordData } from '../records/user-scram-credential-record.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/** A user's credential for one mechanism: salt, stored key, server key, iterations. */
export type ScramCredential = Readonly<UserScramCredentialRecordData>;

/** The key of a credential in `ScramImage`: the mechanism id, a colon, the user name. */
export function scramCredentialKey(mechanism: number, name: string): string {
  return `${mechanism}:${name}`;
}

/** SCRAM credentials by mechanism and user (Kafka's `ScramImage`). */
export class ScramImage {
  static readonly EMPTY = new ScramImage(PersistentMap());

  readonly credentials: PersistentMap<string, ScramCredential>;

  constructor(credentials: PersistentMap<string, ScramCredential>) {
    this.credentials = credentials;
  }

  /**
   * The credential of user `name` for `mechanism` (1 is SCRAM-SHA-256, 2 SCRAM-SHA-512); undefined
   * if none.
   */
  credential(mechanism: number, name: string): ScramCredential | undefined {
    return this.credentials.get(scramCredentialKey(mechanism, name));
  }

  /** Whether the image holds no SCRAM credential. */
  isEmpty(): boolean {
    return this.credentials.size === 0;
  }

  /** The UserScramCredentialRecords that rebuild this part on the empty image, in key order. */
  *records(): Generator<ApiMessageAndVersion> {
    for (const key of sortedKeys(this.credentials.keys())) {
      yield latestRecord(
        MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD,
        this.credentials.get(key) as ScramCredential,
      );
    }
  }
}
