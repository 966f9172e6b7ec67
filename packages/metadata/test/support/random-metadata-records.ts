/**
 * Random valid metadata record sequences for properties and benchmarks: a list of abstract
 * operations (fast-check draws them) becomes records that only name brokers, topics, partitions
 * and ACLs that exist at that point, so every record replays without a fault.
 */

import type { MessageData } from '@kraft/protocol';
import { Uuid } from '@kraft/protocol';
import fc from 'fast-check';
import type { MetadataRecordCodecs } from '../../src/records/metadata-record-type.js';
import {
  METADATA_RECORD_CODECS,
  MetadataRecordType,
  type MetadataRecordTypeId,
} from '../../src/records/metadata-record-type.js';
import type { PartitionRecordData } from '../../src/records/partition-record.js';
import type { RegisterBrokerRecordData } from '../../src/records/register-broker-record.js';
import { type ApiMessageAndVersion, apiMessageAndVersion } from '../../src/serde/api-message-and-version.js';

export function latest<K extends MetadataRecordTypeId>(
  recordType: K,
  data: MessageData<MetadataRecordCodecs[K]>,
): ApiMessageAndVersion {
  return apiMessageAndVersion(recordType, METADATA_RECORD_CODECS[recordType].highestVersion, data);
}

/** A PartitionRecord at the highest version: replicas [1, 2], all in sync, leader 1, `fields` on top. */
export function partitionRecord(
  topicId: Uuid,
  partitionId: number,
  fields: Partial<PartitionRecordData> = {},
): ApiMessageAndVersion {
  return latest(MetadataRecordType.PARTITION_RECORD, {
    partitionId,
    topicId,
    replicas: [1, 2],
    isr: [1, 2],
    removingReplicas: [],
    addingReplicas: [],
    leader: 1,
    leaderRecoveryState: 0,
    leaderEpoch: 0,
    partitionEpoch: 0,
    directories: [uuidOf(100), uuidOf(101)],
    eligibleLeaderReplicas: null,
    lastKnownElr: null,
    ...fields,
  });
}

/** A RegisterBrokerRecord at the highest version: epoch 10, unfenced, no endpoints or directories, `fields` on top. */
export function registerBrokerRecord(
  brokerId: number,
  fields: Partial<RegisterBrokerRecordData> = {},
): ApiMessageAndVersion {
  return latest(MetadataRecordType.REGISTER_BROKER_RECORD, {
    brokerId,
    isMigratingZkBroker: false,
    incarnationId: uuidOf(brokerId + 4),
    brokerEpoch: 10n,
    endPoints: [],
    features: [],
    rack: null,
    fenced: false,
    inControlledShutdown: false,
    logDirs: [],
    cordonedLogDirs: null,
    ...fields,
  });
}

/** A deterministic uuid from a small number, so shrunk counterexamples stay readable. */
export function uuidOf(seed: number): Uuid {
  return Uuid.fromLongs(BigInt(seed) + 1000n, BigInt(seed) * 7919n + 1n);
}

export type Operation =
  | {
      readonly kind: 'register-broker';
      readonly brokerId: number;
      readonly rack: string | null;
      readonly fenced: boolean;
    }
  | {
      readonly kind: 'broker-change';
      readonly pick: number;
      readonly change: 'fence' | 'unfence' | 'unregister' | 'registration-change';
    }
  | { readonly kind: 'controller'; readonly controllerId: number; readonly register: boolean }
  | { readonly kind: 'topic'; readonly name: string }
  | {
      readonly kind: 'partition';
      readonly pick: number;
      readonly partitionId: number;
      readonly replicas: number[];
      readonly legacy: boolean;
    }
  | {
      readonly kind: 'partition-change';
      readonly pick: number;
      readonly leader: number;
      readonly isr: number[] | null;
      readonly replicas: number[] | null;
    }
  | { readonly kind: 'remove-topic'; readonly pick: number }
  | { readonly kind: 'clear-elr'; readonly pick: number; readonly all: boolean }
  | {
      readonly kind: 'config';
      readonly topicConfig: boolean;
      readonly pick: number;
      readonly name: string;
      readonly value: string | null;
    }
  | {
      readonly kind: 'quota';
      readonly user: string | null;
      readonly key: string;
      readonly value: number;
      readonly remove: boolean;
    }
  | { readonly kind: 'producer-ids'; readonly next: number }
  | { readonly kind: 'acl'; readonly seed: number; readonly remove: boolean }
  | { readonly kind: 'scram'; readonly name: string; readonly mechanism: number; readonly remove: boolean }
  | { readonly kind: 'token'; readonly tokenId: string; readonly remove: boolean }
  | { readonly kind: 'feature'; readonly name: string; readonly level: number }
  | { readonly kind: 'no-op' };

const replicaIds = fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 4 });

export const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  // Weighted towards topics and partitions, where most of the replay logic is.
  {
    arbitrary: fc.record({
      kind: fc.constant('register-broker' as const),
      brokerId: fc.integer({ min: 0, max: 5 }),
      rack: fc.option(fc.constantFrom('r1', 'r2'), { nil: null }),
      fenced: fc.boolean(),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('broker-change' as const),
      pick: fc.nat(),
      change: fc.constantFrom(
        'fence' as const,
        'unfence' as const,
        'unregister' as const,
        'registration-change' as const,
      ),
    }),
    weight: 3,
  },
  fc.record({
    kind: fc.constant('controller' as const),
    controllerId: fc.integer({ min: 0, max: 2 }),
    register: fc.boolean(),
  }),
  {
    arbitrary: fc.record({
      kind: fc.constant('topic' as const),
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('partition' as const),
      pick: fc.nat(),
      partitionId: fc.integer({ min: 0, max: 3 }),
      replicas: replicaIds,
      legacy: fc.boolean(),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('partition-change' as const),
      pick: fc.nat(),
      leader: fc.integer({ min: -2, max: 5 }),
      isr: fc.option(replicaIds, { nil: null }),
      replicas: fc.option(replicaIds, { nil: null }),
    }),
    weight: 6,
  },
  fc.record({ kind: fc.constant('remove-topic' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('clear-elr' as const), pick: fc.nat(), all: fc.boolean() }),
  fc.record({
    kind: fc.constant('config' as const),
    topicConfig: fc.boolean(),
    pick: fc.nat(),
    name: fc.constantFrom('retention.ms', 'cleanup.policy'),
    value: fc.option(fc.constantFrom('1', 'compact', ''), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('quota' as const),
    user: fc.option(fc.constantFrom('alice', 'bob'), { nil: null }),
    key: fc.constantFrom('producer_byte_rate', 'consumer_byte_rate'),
    value: fc.double({ min: 0, max: 1e9, noNaN: true }),
    remove: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('producer-ids' as const), next: fc.integer({ min: 0, max: 1_000_000 }) }),
  fc.record({
    kind: fc.constant('acl' as const),
    seed: fc.integer({ min: 0, max: 4 }),
    remove: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('scram' as const),
    name: fc.constantFrom('alice', 'bob'),
    mechanism: fc.constantFrom(1, 2),
    remove: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('token' as const),
    tokenId: fc.constantFrom('t1', 't2'),
    remove: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('feature' as const),
    name: fc.constantFrom('metadata.version', 'kraft.version', 'group.version'),
    level: fc.integer({ min: 0, max: 27 }),
  }),
  fc.constant({ kind: 'no-op' as const }),
);

/** What the sequence so far has created: only these may be named by the next record. */
class ValidityModel {
  readonly brokerEpochs = new Map<number, bigint>();
  readonly topics = new Map<string, { id: Uuid; partitions: Map<number, number[]> }>();
  readonly aclIds = new Set<number>();
  nextTopicSeed = 0;
  nextBrokerEpoch = 10n;
}

function pickFrom<T>(values: readonly T[], pick: number): T | undefined {
  return values.length === 0 ? undefined : values[pick % values.length];
}

/** The records of `operations`, skipping the ones that would name something absent. */
export function recordsOf(operations: readonly Operation[]): ApiMessageAndVersion[] {
  const model = new ValidityModel();
  const records: ApiMessageAndVersion[] = [];
  for (const operation of operations) {
    const record = recordOf(operation, model);
    if (record !== undefined) records.push(record);
  }
  return records;
}

function recordOf(operation: Operation, model: ValidityModel): ApiMessageAndVersion | undefined {
  switch (operation.kind) {
    case 'register-broker':
      return registerBroker(operation, model);
    case 'broker-change':
      return brokerChange(operation, model);
    case 'controller':
      return operation.register
        ? latest(MetadataRecordType.REGISTER_CONTROLLER_RECORD, {
            controllerId: operation.controllerId,
            incarnationId: uuidOf(operation.controllerId + 500),
            zkMigrationReady: false,
            endPoints: [
              {
                name: 'CONTROLLER',
                host: 'localhost',
                port: 9093 + operation.controllerId,
                securityProtocol: 0,
              },
            ],
            features: [{ name: 'kraft.version', minSupportedVersion: 0, maxSupportedVersion: 1 }],
          })
        : latest(MetadataRecordType.UNREGISTER_CONTROLLER_RECORD, { controllerId: operation.controllerId });
    case 'topic': {
      if (model.topics.has(operation.name)) return undefined;
      const topicId = uuidOf(model.nextTopicSeed++);
      model.topics.set(operation.name, { id: topicId, partitions: new Map() });
      return latest(MetadataRecordType.TOPIC_RECORD, { name: operation.name, topicId });
    }
    case 'partition':
      return partition(operation, model);
    case 'partition-change':
      return partitionChange(operation, model);
    case 'remove-topic': {
      const name = pickFrom([...model.topics.keys()], operation.pick);
      if (name === undefined) return undefined;
      const topic = model.topics.get(name)!;
      model.topics.delete(name);
      return latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: topic.id });
    }
    case 'clear-elr': {
      const name = operation.all ? '' : pickFrom([...model.topics.keys()], operation.pick);
      if (name === undefined) return undefined;
      return latest(MetadataRecordType.CLEAR_ELR_RECORD, { topicName: name });
    }
    case 'config': {
      const topicName = operation.topicConfig ? pickFrom([...model.topics.keys()], operation.pick) : '0';
      if (topicName === undefined) return undefined;
      return latest(MetadataRecordType.CONFIG_RECORD, {
        resourceType: operation.topicConfig ? 2 : 4,
        resourceName: topicName,
        name: operation.name,
        value: operation.value,
      });
    }
    case 'quota':
      return latest(MetadataRecordType.CLIENT_QUOTA_RECORD, {
        entity: [{ entityType: 'user', entityName: operation.user }],
        key: operation.key,
        value: operation.value,
        remove: operation.remove,
      });
    case 'producer-ids':
      return latest(MetadataRecordType.PRODUCER_IDS_RECORD, {
        brokerId: 1,
        brokerEpoch: 5n,
        nextProducerId: BigInt(operation.next),
      });
    case 'acl':
      return acl(operation, model);
    case 'scram':
      return operation.remove
        ? latest(MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL_RECORD, {
            name: operation.name,
            mechanism: operation.mechanism,
          })
        : latest(MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, {
            name: operation.name,
            mechanism: operation.mechanism,
            salt: Buffer.from(`salt-${operation.name}`),
            storedKey: Buffer.from('stored'),
            serverKey: Buffer.from('server'),
            iterations: 4096,
          });
    case 'token':
      return operation.remove
        ? latest(MetadataRecordType.REMOVE_DELEGATION_TOKEN_RECORD, { tokenId: operation.tokenId })
        : latest(MetadataRecordType.DELEGATION_TOKEN_RECORD, {
            owner: 'User:alice',
            requester: 'User:alice',
            renewers: ['User:bob'],
            issueTimestamp: 1n,
            maxTimestamp: 100n,
            expirationTimestamp: 50n,
            tokenId: operation.tokenId,
          });
    case 'feature':
      if (operation.name === 'metadata.version' && operation.level === 0) return undefined;
      return latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
        name: operation.name,
        featureLevel: operation.level,
      });
    case 'no-op':
      return latest(MetadataRecordType.NO_OP_RECORD, {});
  }
}

function registerBroker(
  operation: Extract<Operation, { kind: 'register-broker' }>,
  model: ValidityModel,
): ApiMessageAndVersion {
  const brokerEpoch = model.nextBrokerEpoch++;
  model.brokerEpochs.set(operation.brokerId, brokerEpoch);
  return latest(MetadataRecordType.REGISTER_BROKER_RECORD, {
    brokerId: operation.brokerId,
    isMigratingZkBroker: false,
    incarnationId: uuidOf(operation.brokerId + 100),
    brokerEpoch,
    endPoints: [
      { name: 'PLAINTEXT', host: 'localhost', port: 9092 + operation.brokerId, securityProtocol: 0 },
    ],
    features: [{ name: 'metadata.version', minSupportedVersion: 7, maxSupportedVersion: 27 }],
    rack: operation.rack,
    fenced: operation.fenced,
    inControlledShutdown: false,
    logDirs: [uuidOf(operation.brokerId + 200)],
    cordonedLogDirs: null,
  });
}

function brokerChange(
  operation: Extract<Operation, { kind: 'broker-change' }>,
  model: ValidityModel,
): ApiMessageAndVersion | undefined {
  const brokerId = pickFrom([...model.brokerEpochs.keys()].sort(), operation.pick);
  if (brokerId === undefined) return undefined;
  const epoch = model.brokerEpochs.get(brokerId)!;
  switch (operation.change) {
    case 'fence':
      return latest(MetadataRecordType.FENCE_BROKER_RECORD, { id: brokerId, epoch });
    case 'unfence':
      return latest(MetadataRecordType.UNFENCE_BROKER_RECORD, { id: brokerId, epoch });
    case 'unregister':
      model.brokerEpochs.delete(brokerId);
      return latest(MetadataRecordType.UNREGISTER_BROKER_RECORD, { brokerId, brokerEpoch: epoch });
    case 'registration-change':
      return latest(MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD, {
        brokerId,
        brokerEpoch: epoch,
        fenced: (operation.pick % 3) - 1,
        inControlledShutdown: operation.pick % 2,
        logDirs: operation.pick % 2 === 0 ? [] : [uuidOf(brokerId + 300)],
        cordonedLogDirs: operation.pick % 4 === 0 ? [uuidOf(brokerId + 300)] : null,
      });
  }
}

function partition(
  operation: Extract<Operation, { kind: 'partition' }>,
  model: ValidityModel,
): ApiMessageAndVersion | undefined {
  const name = pickFrom([...model.topics.keys()], operation.pick);
  if (name === undefined) return undefined;
  const topic = model.topics.get(name)!;
  topic.partitions.set(operation.partitionId, operation.replicas);
  const data = {
    partitionId: operation.partitionId,
    topicId: topic.id,
    replicas: operation.replicas,
    isr: operation.replicas,
    removingReplicas: [],
    addingReplicas: [],
    leader: operation.replicas[0] ?? -1,
    leaderRecoveryState: 0,
    leaderEpoch: 0,
    partitionEpoch: 0,
    directories: operation.legacy ? [] : operation.replicas.map((replica) => uuidOf(replica + 200)),
    eligibleLeaderReplicas: operation.legacy ? null : [],
    lastKnownElr: operation.legacy ? null : operation.replicas.slice(1),
  };
  // A legacy record is version 0: no directories, no ELR, as a pre-3.7 controller wrote it.
  return operation.legacy
    ? apiMessageAndVersion(MetadataRecordType.PARTITION_RECORD, 0, data)
    : latest(MetadataRecordType.PARTITION_RECORD, data);
}

function partitionChange(
  operation: Extract<Operation, { kind: 'partition-change' }>,
  model: ValidityModel,
): ApiMessageAndVersion | undefined {
  const withPartitions = [...model.topics.values()].filter((topic) => topic.partitions.size > 0);
  const topic = pickFrom(withPartitions, operation.pick);
  if (topic === undefined) return undefined;
  const partitionId = pickFrom([...topic.partitions.keys()].sort(), operation.pick)!;
  if (operation.replicas !== null) topic.partitions.set(partitionId, operation.replicas);
  return latest(MetadataRecordType.PARTITION_CHANGE_RECORD, {
    partitionId,
    topicId: topic.id,
    isr: operation.isr,
    leader: operation.leader,
    replicas: operation.replicas,
    removingReplicas: null,
    addingReplicas: null,
    leaderRecoveryState: operation.pick % 3 === 0 ? 1 : -1,
    directories: null,
    eligibleLeaderReplicas: operation.pick % 2 === 0 ? [1] : null,
    lastKnownElr: null,
  });
}

function acl(
  operation: Extract<Operation, { kind: 'acl' }>,
  model: ValidityModel,
): ApiMessageAndVersion | undefined {
  if (operation.remove) {
    if (!model.aclIds.delete(operation.seed)) return undefined;
    return latest(MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD, {
      id: uuidOf(operation.seed + 900),
    });
  }
  model.aclIds.add(operation.seed);
  return latest(MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD, {
    id: uuidOf(operation.seed + 900),
    resourceType: 2,
    resourceName: `topic-${operation.seed}`,
    patternType: 3,
    principal: 'User:alice',
    host: '*',
    operation: 3,
    permissionType: 3,
  });
}
