/** A bounded summary of durations: count, total, last and maximum. */
export class DurationSummary {
  count = 0;
  totalNs = 0;
  lastNs = 0;
  maxNs = 0;

  /** Adds one duration, in nanoseconds. */
  record(durationNs: number): void {
    this.count += 1;
    this.totalNs += durationNs;
    this.lastNs = durationNs;
    if (durationNs > this.maxNs) this.maxNs = durationNs;
  }
}

/** Kafka's `MetadataLoaderMetrics`, as plain fields the application exports as it likes. */
export class MetadataLoaderMetrics {
  /** The offset of the last record in the last image applied; -1 before any. */
  lastAppliedRecordOffset = -1;
  /** The append time of the batch holding that record. */
  lastAppliedRecordTimestampMs = -1;
  /** The finalized metadata.version of the current image, undefined before the first. */
  currentMetadataVersion: number | undefined;
  handleLoadSnapshotCount = 0;
  /** Time to replay one batch into the delta. */
  readonly batchProcessingTime = new DurationSummary();
  /** Time to hand one image to every publisher. */
  readonly publishLatency = new DurationSummary();
}
