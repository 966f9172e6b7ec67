import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import type { BrokerRegistrationChangeRecordData } from '../records/broker-registration-change-record.js';
import type { FenceBrokerRecordData } from '../records/fence-broker-record.js';
import type { RegisterBrokerRecordData } from '../records/register-broker-record.js';
import type { RegisterControllerRecordData } from '../records/register-controller-record.js';
import type { UnfenceBrokerRecordData } from '../records/unfence-broker-record.js';
import type { UnregisterBrokerRecordData } from '../records/unregister-broker-record.js';
import type { UnregisterControllerRecordData } from '../records/unregister-controller-record.js';
import { type BrokerRegistration, ClusterImage, type ControllerRegistration } from './cluster-image.js';
import { PersistentMapDelta } from './persistent-map-delta.js';

/** BrokerRegistrationChangeRecord.fenced: Kafka's `BrokerRegistrationFencingChange` values. */
const FENCING_CHANGE = { UNFENCE: -1, NONE: 0, FENCE: 1 } as const;
/** BrokerRegistrationChangeRecord.inControlledShutdown: `BrokerRegistrationInControlledShutdownChange`. */
const CONTROLLED_SHUTDOWN_CHANGE = { NONE: 0, IN_CONTROLLED_SHUTDOWN: 1 } as const;

/**
 * Broker and controller registration changes on top of a `ClusterImage` (Kafka's `ClusterDelta`). A
 * record naming an unregistered broker, or another broker epoch, throws `MetadataReplayError`.
 */
export class ClusterDelta {
  readonly image: ClusterImage;
  private readonly brokers: PersistentMapDelta<number, BrokerRegistration>;
  private readonly controllers: PersistentMapDelta<number, ControllerRegistration>;

  constructor(image: ClusterImage) {
    this.image = image;
    this.brokers = new PersistentMapDelta(image.brokers);
    this.controllers = new PersistentMapDelta(image.controllers);
  }

  /** The broker's registration as the delta has it so far; undefined if not registered. */
  broker(brokerId: number): BrokerRegistration | undefined {
    return this.brokers.get(brokerId);
  }

  /** RegisterBrokerRecord: registers the broker, replacing any earlier registration of its id. */
  replayRegisterBroker(record: RegisterBrokerRecordData): void {
    this.brokers.set(record.brokerId, record);
  }

  /**
   * UnregisterBrokerRecord: removes the broker.
   *
   * @throws {@link MetadataReplayError} if it is not registered at that broker epoch.
   */
  replayUnregisterBroker(record: UnregisterBrokerRecordData): void {
    this.brokerOrThrow(record.brokerId, record.brokerEpoch, 'unregister');
    this.brokers.delete(record.brokerId);
  }

  /**
   * FenceBrokerRecord (before BrokerRegistrationChangeRecord existed): marks the broker fenced.
   *
   * @throws {@link MetadataReplayError} if it is not registered at that broker epoch.
   */
  replayFenceBroker(record: FenceBrokerRecordData): void {
    const current = this.brokerOrThrow(record.id, record.epoch, 'fence');
    this.brokers.set(record.id, { ...current, fenced: true });
  }

  /**
   * UnfenceBrokerRecord: marks the broker unfenced.
   *
   * @throws {@link MetadataReplayError} if it is not registered at that broker epoch.
   */
  replayUnfenceBroker(record: UnfenceBrokerRecordData): void {
    const current = this.brokerOrThrow(record.id, record.epoch, 'unfence');
    this.brokers.set(record.id, { ...current, fenced: false });
  }

  /**
   * BrokerRegistrationChangeRecord: changes fencing, controlled shutdown and log directories; an
   * empty or null list leaves its field unchanged, as in Kafka.
   *
   * @throws {@link MetadataReplayError} if the broker is not registered at that epoch, or for an
   * unknown change value.
   */
  replayBrokerRegistrationChange(record: BrokerRegistrationChangeRecordData): void {
    const current = this.brokerOrThrow(record.brokerId, record.brokerEpoch, 'change');
    const fenced = fencedAfter(current.fenced, record.fenced);
    const inControlledShutdown = controlledShutdownAfter(
      current.inControlledShutdown,
      record.inControlledShutdown,
    );
    // An empty list and a null list both mean "unchanged", as in Kafka.
    const logDirs = record.logDirs.length > 0 ? record.logDirs : current.logDirs;
    const cordonedLogDirs = record.cordonedLogDirs ?? current.cordonedLogDirs;
    this.brokers.set(record.brokerId, { ...current, fenced, inControlledShutdown, logDirs, cordonedLogDirs });
  }

  /**
   * RegisterControllerRecord: registers the controller, replacing any earlier registration of its
   * id.
   */
  replayRegisterController(record: RegisterControllerRecordData): void {
    this.controllers.set(record.controllerId, record);
  }

  /**
   * UnregisterControllerRecord: removes the controller (nothing happens if it was not registered).
   */
  replayUnregisterController(record: UnregisterControllerRecordData): void {
    this.controllers.delete(record.controllerId);
  }

  /** The ids of the brokers registered, changed or removed so far. */
  changedBrokerIds(): ReadonlySet<number> {
    return this.brokers.changedKeys();
  }

  /** The brokers removed so far, with the registration each had in the base image. */
  removedBrokers(): ReadonlyMap<number, BrokerRegistration> {
    return this.brokers.removed();
  }

  /** The next image; the same image when nothing changed. */
  apply(): ClusterImage {
    if (!this.brokers.hasChanges() && !this.controllers.hasChanges()) return this.image;
    return new ClusterImage(this.brokers.seal(), this.controllers.seal());
  }

  private brokerOrThrow(brokerId: number, brokerEpoch: bigint, action: string): BrokerRegistration {
    const current = this.brokers.get(brokerId);
    if (current === undefined) {
      throw new MetadataReplayError(`cannot ${action} broker ${brokerId}: it is not registered`);
    }
    if (current.brokerEpoch !== brokerEpoch) {
      throw new MetadataReplayError(
        `cannot ${action} broker ${brokerId} at epoch ${brokerEpoch}: it is registered at epoch ${current.brokerEpoch}`,
      );
    }
    return current;
  }
}

function fencedAfter(fenced: boolean, change: number): boolean {
  switch (change) {
    case FENCING_CHANGE.FENCE:
      return true;
    case FENCING_CHANGE.UNFENCE:
      return false;
    case FENCING_CHANGE.NONE:
      return fenced;
    default:
      throw new MetadataReplayError(`invalid broker fencing change ${change}`);
  }
}

function controlledShutdownAfter(inControlledShutdown: boolean, change: number): boolean {
  switch (change) {
    case CONTROLLED_SHUTDOWN_CHANGE.IN_CONTROLLED_SHUTDOWN:
      return true;
    case CONTROLLED_SHUTDOWN_CHANGE.NONE:
      return inControlledShutdown;
    default:
      throw new MetadataReplayError(`invalid broker controlled shutdown change ${change}`);
  }
}
