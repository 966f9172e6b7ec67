import { IllegalStateError } from '../errors/illegal-state-error.js';

/** An inclusive range of message versions, parsed from Kafka's notation: `0+`, `1-3`, `2`, `none`. */
export class VersionRange {
  static readonly NONE = new VersionRange(1, 0);
  static readonly ALL = new VersionRange(0, 0x7fff);

  private constructor(
    readonly lowest: number,
    readonly highest: number,
  ) {}

  /**
   * Parses Kafka's schema notation: `none`, `N+` (N and every later version), `N-M`, or `N`.
   *
   * @throws {@link IllegalStateError} for any other text or a range whose low end is above its
   * high end: version ranges come from schema declarations, so a bad one is a programming error.
   */
  static parse(text: string): VersionRange {
    if (text === 'none') return VersionRange.NONE;
    const open = /^(\d+)\+$/.exec(text);
    if (open !== null) return new VersionRange(Number(open[1]), 0x7fff);
    const closed = /^(\d+)-(\d+)$/.exec(text);
    if (closed !== null) return VersionRange.between(Number(closed[1]), Number(closed[2]), text);
    const single = /^(\d+)$/.exec(text);
    if (single !== null) return VersionRange.between(Number(single[1]), Number(single[1]), text);
    throw new IllegalStateError(`invalid version range '${text}'`);
  }

  private static between(lowest: number, highest: number, text: string): VersionRange {
    if (lowest > highest) throw new IllegalStateError(`invalid version range '${text}'`);
    return new VersionRange(lowest, highest);
  }

  /** Whether no version is in the range (`none`, as `flexibleVersions` of a never-flexible message). */
  isEmpty(): boolean {
    return this.lowest > this.highest;
  }

  /** Whether `version` lies between `lowest` and `highest`, both included. */
  contains(version: number): boolean {
    return version >= this.lowest && version <= this.highest;
  }

  /** Whether some version lies in both ranges. */
  intersects(other: VersionRange): boolean {
    return Math.max(this.lowest, other.lowest) <= Math.min(this.highest, other.highest);
  }

  /** The range in the notation `parse` reads: `none`, `N+`, `N-M` or `N`. */
  toString(): string {
    if (this.isEmpty()) return 'none';
    if (this.highest === 0x7fff) return `${this.lowest}+`;
    return this.lowest === this.highest ? `${this.lowest}` : `${this.lowest}-${this.highest}`;
  }
}
