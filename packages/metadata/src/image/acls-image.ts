import { Map as PersistentMap } from 'immutable';
import type { AccessControlEntryRecordData } from '../records/access-control-entry-record.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/** One ACL with its id (Kafka's `StandardAclWithId`). */
export type StandardAclWithId = Readonly<AccessControlEntryRecordData>;

/** ACLs by id text (Kafka's `AclsImage`). */
export class AclsImage {
  static readonly EMPTY = new AclsImage(PersistentMap());

  readonly acls: PersistentMap<string, StandardAclWithId>;

  constructor(acls: PersistentMap<string, StandardAclWithId>) {
    this.acls = acls;
  }

  /** Whether the image holds no ACL. */
  isEmpty(): boolean {
    return this.acls.size === 0;
  }

  /** The AccessControlEntryRecords that rebuild this part on the empty image, in ACL id order. */
  *records(): Generator<ApiMessageAndVersion> {
    for (const id of sortedKeys(this.acls.keys())) {
      yield latestRecord(
        MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD,
        this.acls.get(id) as StandardAclWithId,
      );
    }
  }
}
