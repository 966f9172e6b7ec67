// Bitsets live in fixed chunks of this many words (4 MiB), so a growing set never copies what it
// holds and one state costs no allocation of its own.
const CHUNK_WORDS = 1 << 20;
const NONE = -1;

/**
 * The (linearized set, model state) pairs a search has explored, Porcupine's cache: a hash table
 * chained through arrays, the sets packed into shared chunks of words.
 */
export class ExploredSet<State> {
  private readonly equal: (a: State, b: State) => boolean;
  private readonly wordsPerSet: number;
  private readonly setsPerChunk: number;
  private readonly chunks: Uint32Array[] = [];
  private readonly states: State[] = [];
  private readonly nextInBucket: number[] = [];
  private readonly firstInBucket = new Map<number, number>();

  constructor(equal: (a: State, b: State) => boolean, wordsPerSet: number) {
    this.equal = equal;
    this.wordsPerSet = Math.max(1, wordsPerSet);
    this.setsPerChunk = Math.max(1, Math.floor(CHUNK_WORDS / this.wordsPerSet));
  }

  /** Bytes one more pair costs: its bitset, its slots in the arrays, and a share of a table entry. */
  static bytesPerState(wordsPerSet: number): number {
    return 4 * Math.max(1, wordsPerSet) + 48;
  }

  get size(): number {
    return this.states.length;
  }

  /** Adds the pair unless it is already present; true when it was added. */
  addIfAbsent(hash: number, bits: Uint32Array, state: State): boolean {
    const first = this.firstInBucket.get(hash);
    for (let index = first ?? NONE; index !== NONE; index = this.nextInBucket[index]!) {
      if (this.sameBits(index, bits) && this.equal(this.states[index]!, state)) return false;
    }
    const index = this.states.length;
    const chunkIndex = Math.floor(index / this.setsPerChunk);
    if (chunkIndex === this.chunks.length)
      this.chunks.push(new Uint32Array(this.setsPerChunk * this.wordsPerSet));
    this.chunks[chunkIndex]!.set(bits, (index % this.setsPerChunk) * this.wordsPerSet);
    this.states.push(state);
    this.nextInBucket.push(first ?? NONE);
    this.firstInBucket.set(hash, index);
    return true;
  }

  private sameBits(index: number, bits: Uint32Array): boolean {
    const chunk = this.chunks[Math.floor(index / this.setsPerChunk)]!;
    const offset = (index % this.setsPerChunk) * this.wordsPerSet;
    for (let word = 0; word < bits.length; word++) if (chunk[offset + word] !== bits[word]) return false;
    return true;
  }
}
