import type { MessageCodec } from '@kraft/protocol';
import { AbortTransactionRecord } from './abort-transaction-record.js';
import { AccessControlEntryRecord } from './access-control-entry-record.js';
import { BeginTransactionRecord } from './begin-transaction-record.js';
import { BrokerRegistrationChangeRecord } from './broker-registration-change-record.js';
import { ClearElrRecord } from './clear-elr-record.js';
import { ClientQuotaRecord } from './client-quota-record.js';
import { ConfigRecord } from './config-record.js';
import { DelegationTokenRecord } from './delegation-token-record.js';
import { EndTransactionRecord } from './end-transaction-record.js';
import { FeatureLevelRecord } from './feature-level-record.js';
import { FenceBrokerRecord } from './fence-broker-record.js';
import { NoOpRecord } from './no-op-record.js';
import { PartitionChangeRecord } from './partition-change-record.js';
import { PartitionRecord } from './partition-record.js';
import { ProducerIdsRecord } from './producer-ids-record.js';
import { RegisterBrokerRecord } from './register-broker-record.js';
import { RegisterControllerRecord } from './register-controller-record.js';
import { RemoveAccessControlEntryRecord } from './remove-access-control-entry-record.js';
import { RemoveDelegationTokenRecord } from './remove-delegation-token-record.js';
import { RemoveTopicRecord } from './remove-topic-record.js';
import { RemoveUserScramCredentialRecord } from './remove-user-scram-credential-record.js';
import { TopicRecord } from './topic-record.js';
import { UnfenceBrokerRecord } from './unfence-broker-record.js';
import { UnregisterBrokerRecord } from './unregister-broker-record.js';
import { UnregisterControllerRecord } from './unregister-controller-record.js';
import { UserScramCredentialRecord } from './user-scram-credential-record.js';
import { ZkMigrationStateRecord } from './zk-migration-state-record.js';

/**
 * Metadata record types by Kafka's `MetadataRecordType` names. The id is the `apiKey` of the
 * record's schema and the second varint of its frame. Ids 6, 13 and 16 belonged to records Kafka
 * removed before KRaft shipped; no log holds them.
 */
export const MetadataRecordType = {
  REGISTER_BROKER_RECORD: 0,
  UNREGISTER_BROKER_RECORD: 1,
  TOPIC_RECORD: 2,
  PARTITION_RECORD: 3,
  CONFIG_RECORD: 4,
  PARTITION_CHANGE_RECORD: 5,
  FENCE_BROKER_RECORD: 7,
  UNFENCE_BROKER_RECORD: 8,
  REMOVE_TOPIC_RECORD: 9,
  DELEGATION_TOKEN_RECORD: 10,
  USER_SCRAM_CREDENTIAL_RECORD: 11,
  FEATURE_LEVEL_RECORD: 12,
  CLIENT_QUOTA_RECORD: 14,
  PRODUCER_IDS_RECORD: 15,
  BROKER_REGISTRATION_CHANGE_RECORD: 17,
  ACCESS_CONTROL_ENTRY_RECORD: 18,
  REMOVE_ACCESS_CONTROL_ENTRY_RECORD: 19,
  NO_OP_RECORD: 20,
  ZK_MIGRATION_STATE_RECORD: 21,
  REMOVE_USER_SCRAM_CREDENTIAL_RECORD: 22,
  BEGIN_TRANSACTION_RECORD: 23,
  END_TRANSACTION_RECORD: 24,
  ABORT_TRANSACTION_RECORD: 25,
  REMOVE_DELEGATION_TOKEN_RECORD: 26,
  REGISTER_CONTROLLER_RECORD: 27,
  CLEAR_ELR_RECORD: 28,
  UNREGISTER_CONTROLLER_RECORD: 29,
} as const;

/** A `MetadataRecordType` key: Kafka's `MetadataRecordType` enum constant name (`TOPIC_RECORD`). */
export type MetadataRecordTypeName = keyof typeof MetadataRecordType;
/**
 * A metadata record type id (the frame's record type, Kafka's `apiKey` of the record schema): 0 to
 * 29 without 6, 13 and 16.
 */
export type MetadataRecordTypeId = (typeof MetadataRecordType)[MetadataRecordTypeName];

/** The codec of each record type, keyed by type id. */
export const METADATA_RECORD_CODECS = {
  0: RegisterBrokerRecord,
  1: UnregisterBrokerRecord,
  2: TopicRecord,
  3: PartitionRecord,
  4: ConfigRecord,
  5: PartitionChangeRecord,
  7: FenceBrokerRecord,
  8: UnfenceBrokerRecord,
  9: RemoveTopicRecord,
  10: DelegationTokenRecord,
  11: UserScramCredentialRecord,
  12: FeatureLevelRecord,
  14: ClientQuotaRecord,
  15: ProducerIdsRecord,
  17: BrokerRegistrationChangeRecord,
  18: AccessControlEntryRecord,
  19: RemoveAccessControlEntryRecord,
  20: NoOpRecord,
  21: ZkMigrationStateRecord,
  22: RemoveUserScramCredentialRecord,
  23: BeginTransactionRecord,
  24: EndTransactionRecord,
  25: AbortTransactionRecord,
  26: RemoveDelegationTokenRecord,
  27: RegisterControllerRecord,
  28: ClearElrRecord,
  29: UnregisterControllerRecord,
} as const satisfies Record<MetadataRecordTypeId, object>;

/** The codec type of each record type id, so `MetadataRecordCodecs[2]` is TopicRecord's codec. */
export type MetadataRecordCodecs = typeof METADATA_RECORD_CODECS;

/** Every record type id, ascending. */
export const ALL_METADATA_RECORD_TYPES: readonly MetadataRecordTypeId[] = Object.freeze(
  Object.values(MetadataRecordType).sort((a, b) => a - b),
);

const CODEC_BY_ID: ReadonlyMap<number, MessageCodec<unknown>> = new Map(
  ALL_METADATA_RECORD_TYPES.map((id) => [id, METADATA_RECORD_CODECS[id] as MessageCodec<unknown>]),
);

const NAME_BY_ID: ReadonlyMap<number, MetadataRecordTypeName> = new Map(
  (Object.entries(MetadataRecordType) as [MetadataRecordTypeName, MetadataRecordTypeId][]).map(
    ([name, id]) => [id, name],
  ),
);

/** The codec of a record type id, or undefined for an id no metadata record has. */
export function metadataRecordCodec(recordType: number): MessageCodec<unknown> | undefined {
  return CODEC_BY_ID.get(recordType);
}

/** Kafka's enum name of a record type id (`TOPIC_RECORD`), or undefined for an unknown id. */
export function metadataRecordTypeName(recordType: number): MetadataRecordTypeName | undefined {
  return NAME_BY_ID.get(recordType);
}
