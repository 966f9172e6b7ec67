import { Map as PersistentMap } from 'immutable';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { RegisterBrokerRecordData } from '../records/register-broker-record.js';
import type { RegisterControllerRecordData } from '../records/register-controller-record.js';
import { type ApiMessageAndVersion, apiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';
import type { ImageWriterOptions } from './image-writer-options.js';

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

  *records(options: ImageWriterOptions): Generator<ApiMessageAndVersion> {
    for (const brokerId of sortedKeys(this.brokers.keys())) {
      yield brokerRecordOf(this.brokers.get(brokerId) as BrokerRegistration, options);
    }
    for (const controllerId of sortedKeys(this.controllers.keys())) {
      const registration = this.controllers.get(controllerId) as ControllerRegistration;
      yield latestRecord(MetadataRecordType.REGISTER_CONTROLLER_RECORD, registration);
    }
  }
}

/**
 * The RegisterBrokerRecord that recreates `registration`, at the version `options` selects
 * (Kafka's `BrokerRegistration.toRecord`): a state the version has no field for is a loss when it
 * is set (controlled shutdown, a migrating ZooKeeper broker, log directories, cordoned log
 * directories), and is left at its default.
 */
function brokerRecordOf(registration: BrokerRegistration, options: ImageWriterOptions): ApiMessageAndVersion {
  let { inControlledShutdown, isMigratingZkBroker, logDirs, cordonedLogDirs } = registration;
  if (inControlledShutdown && !options.isInControlledShutdownStateSupported()) {
    options.handleLoss('the inControlledShutdown state of one or more brokers');
    inControlledShutdown = false;
  }
  if (isMigratingZkBroker && !options.isMigrationSupported()) {
    options.handleLoss('the isMigratingZkBroker state of one or more brokers');
    isMigratingZkBroker = false;
  }
  if (logDirs.length > 0 && !options.isDirectoryAssignmentSupported()) {
    options.handleLoss('the online log directories of one or more brokers');
    logDirs = [];
  }
  if (cordonedLogDirs !== null && !options.isCordonedLogDirsSupported()) {
    if (cordonedLogDirs.length > 0) options.handleLoss('the cordoned log directories of one or more brokers');
    cordonedLogDirs = null;
  }
  return apiMessageAndVersion(
    MetadataRecordType.REGISTER_BROKER_RECORD,
    options.registerBrokerRecordVersion(),
    {
      ...registration,
      inControlledShutdown,
      isMigratingZkBroker,
      logDirs,
      cordonedLogDirs,
    },
  );
}
