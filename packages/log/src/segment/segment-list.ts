import { invariant } from '@kraft/protocol';
import type { LogSegment } from './log-segment.js';

/** The segments of a log in base-offset order, with a binary-searched floor lookup. */
export class SegmentList {
  private segments: LogSegment[] = [];

  all(): readonly LogSegment[] {
    return this.segments;
  }

  size(): number {
    return this.segments.length;
  }

  first(): LogSegment | undefined {
    return this.segments[0];
  }

  last(): LogSegment | undefined {
    return this.segments[this.segments.length - 1];
  }

  add(segment: LogSegment): void {
    const last = this.last();
    invariant(
      last === undefined || segment.baseOffset > last.baseOffset,
      () => `segment ${segment.baseOffset} does not follow ${last?.baseOffset}`,
    );
    this.segments.push(segment);
  }

  /** The segment whose base offset is the greatest at or below `offset`. */
  floor(offset: number): LogSegment | undefined {
    const index = this.floorIndex(offset);
    return index === -1 ? undefined : this.segments[index];
  }

  /** The segment after `segment`, if any. */
  next(segment: LogSegment): LogSegment | undefined {
    const index = this.segments.indexOf(segment);
    return index === -1 ? undefined : this.segments[index + 1];
  }

  /** Removes and returns the segments matching `predicate`. */
  removeWhere(predicate: (segment: LogSegment, index: number) => boolean): LogSegment[] {
    const removed: LogSegment[] = [];
    const kept: LogSegment[] = [];
    for (const [index, segment] of this.segments.entries()) {
      if (predicate(segment, index)) removed.push(segment);
      else kept.push(segment);
    }
    this.segments = kept;
    return removed;
  }

  private floorIndex(offset: number): number {
    let low = 0;
    let high = this.segments.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((this.segments[middle] as LogSegment).baseOffset <= offset) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }
}
