/** The clocks the loader and the generator read: elapsed times and the snapshot interval. */
export interface MetadataTime {
  /** A monotonic clock in nanoseconds, for durations. */
  nanoseconds(): number;
  /** A monotonic clock in milliseconds, for the snapshot interval. */
  milliseconds(): number;
}

/** The process's monotonic clock. */
export const SYSTEM_METADATA_TIME: MetadataTime = {
  nanoseconds: () => Number(process.hrtime.bigint()),
  milliseconds: () => performance.now(),
};
