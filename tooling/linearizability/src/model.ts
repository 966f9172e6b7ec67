/**
 * Returned by `Model.step` when the operation cannot take effect in that state with that output.
 * A sentinel rather than a `[ok, nextState]` pair so that the search, which calls `step` once per
 * candidate linearization point, allocates nothing for it.
 */
export const REJECTED: unique symbol = Symbol('linearizability.rejected');
export type Rejected = typeof REJECTED;

/**
 * A sequential specification: the object the history claims to be, one operation at a time.
 * States are values: `step` must not mutate `state` (the search backtracks to earlier states).
 */
export interface Model<State, Input, Output> {
  /** The state before any operation. */
  init(): State;
  /**
   * Applies `input` to `state` and checks that it could have produced `output`. `output` is
   * `undefined` for an operation whose outcome is unknown (`info`): then any output is allowed,
   * but the effect on the state still follows from `input`.
   */
  step(state: State, input: Input, output: Output | undefined): State | Rejected;
  equal(a: State, b: State): boolean;
  /** A 32-bit hash consistent with `equal`. */
  hash(state: State): number;
  /**
   * P-compositionality (Herlihy & Wing): when the object is a set of independent objects (a
   * key-value map is one register per key), the history is linearizable exactly when each
   * object's sub-history is, and each is searched on its own. Operations with the same key form
   * one sub-history, and `init()` is each sub-history's initial state.
   */
  partitionKey?(input: Input): string;
  /**
   * True when the operation, with this output (`undefined`: unknown), leaves every state it is
   * accepted in unchanged: a read, or a compare-and-set that reported it did not swap. Such an
   * operation is placed as soon as it can be, with no search over other orders (moving it
   * earlier changes nothing any other operation sees), and an unknown-outcome one is dropped
   * before the search. Saying true for an operation that can change the state makes the check
   * unsound; leaving the method out only makes it slower.
   */
  isReadOnly?(input: Input, output: Output | undefined): boolean;
  /** A short line for counterexamples, such as `put(k, "v")` or `get(k) -> "v"`. */
  describe?(input: Input, output: Output | undefined): string;
}
