import { Map as PersistentMap } from 'immutable';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { RegisterBrokerRecordData } from '../records/register-broker-record.js';
import type { RegisterControllerRecordData } from '../records/register-controller-record.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/**
 * A broker's registration as its latest RegisterBrokerRecord, with the fencing, controlled
 * shutdown and directory changes replayed since folded in (Kafka's `BrokerRegistration`).
 */
export type BrokerRegistration = Readonly<RegisterBrokerRecordData>;

/** A controller's registration (Kafka's `ControllerRegistration`). */
export type ControllerRegistration = Readonly<RegisterControllerRecordData>;

/** Registered brokers and controllers by id (Kafka's `ClusterImage`). */
export class ClusterImage {
  static readonly EMPTY = new ClusterImage(PersistentMap(), PersistentMap());

  readonly brokers: PersistentMap<number, BrokerRegistration>;
  readonly controllers: PersistentMap<number, ControllerRegistration>;

  constructor(
    brokers: PersistentMap<number, BrokerRegistration>,
    controllers: PersistentMap<number, ControllerRegistration>,
  ) {
    this.brokers = brokers;
    this.controllers = controllers;
  }

  broker(brokerId: number): BrokerRegistration | undefined {
    return this.brokers.get(brokerId);
  }

  isEmpty(): boolean {
    return this.brokers.size === 0 && this.controllers.size === 0;
  }

  *records(): Generator<ApiMessageAndVersion> {
    for (const brokerId of sortedKeys(this.brokers.keys())) {
      const registration = this.brokers.get(brokerId) as BrokerRegistration;
      yield latestRecord(MetadataRecordType.REGISTER_BROKER_RECORD, registration);
    }
    for (const controllerId of sortedKeys(this.controllers.keys())) {
      const registration = this.controllers.get(controllerId) as ControllerRegistration;
      yield latestRecord(MetadataRecordType.REGISTER_CONTROLLER_RECORD, registration);
    }
  }
}
