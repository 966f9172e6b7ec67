/**
 * The known key an unknown one was most likely meant to be, for the "did you mean" hint on a
 * misspelt key (`controller.quorum.election.timout.ms`). A suggestion is made only when the
 * edit distance is small: at most 2, or a fifth of the key's length for long keys, so a
 * Kafka broker key the server does not read (`num.partitions`) gets no far-fetched suggestion.
 */
export function closestKnownKey(unknownKey: string, knownKeys: Iterable<string>): string | undefined {
  const maxDistance = Math.max(2, Math.floor(unknownKey.length / 5));
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const known of knownKeys) {
    // The length difference is a lower bound of the distance: skip keys that cannot win.
    if (Math.abs(known.length - unknownKey.length) >= bestDistance) continue;
    const distance = editDistance(unknownKey, known);
    if (distance < bestDistance) {
      best = known;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Levenshtein distance with adjacent transpositions counted as one edit (optimal string
 * alignment): `timout` → `timeout` is 1, `tiemout` → `timeout` is 1.
 */
export function editDistance(left: string, right: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = left[row - 1] === right[column - 1] ? 0 : 1;
      let distance = Math.min(
        (previous[column] as number) + 1,
        (current[column - 1] as number) + 1,
        (previous[column - 1] as number) + substitution,
      );
      const transposed =
        row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1];
      if (transposed) distance = Math.min(distance, (beforePrevious[column - 2] as number) + 1);
      current.push(distance);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[right.length] as number;
}
