import type { LeaderAndEpoch } from '@kraft/raft';
import type { MetadataDelta } from '../image/metadata-delta.js';
import type { MetadataImage } from '../image/metadata-image.js';
import type { LoaderManifest } from './loader-manifest.js';

/**
 * Receives every image the loader publishes (Kafka's `MetadataPublisher`). All calls run on the
 * loader's event queue, one at a time, in log order.
 */
export interface MetadataPublisher {
  /** Names the publisher in logs and faults. */
  readonly name: string;
  /** Called once, when the loader has caught up and is about to hand over the first image. */
  install?(): void;
  /**
   * A new image. The first call after `install` carries a delta from the empty image to the
   * current one and a snapshot manifest; a loaded snapshot does the same.
   */
  onMetadataUpdate(delta: MetadataDelta, newImage: MetadataImage, manifest: LoaderManifest): void;
  /**
   * The raft leader (the active controller) changed, or became unknown (Kafka's
   * `onControllerChange`); optional.
   */
  onControllerChange?(leader: LeaderAndEpoch): void;
  /** The loader is closing or the publisher was removed: nothing follows. */
  close(): void;
}
