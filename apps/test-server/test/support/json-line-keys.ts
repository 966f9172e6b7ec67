/**
 * The top-level keys of one JSON object line in order, repeats included: `JSON.parse` keeps only
 * the last of a repeated key, so a log line that repeats one looks fine after parsing.
 */
export function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index];
    if (character === '"') {
      const end = endOfString(line, index);
      if (depth === 1 && line[end + 1] === ':') keys.push(JSON.parse(line.slice(index, end + 1)) as string);
      index = end;
    } else if (character === '{' || character === '[') depth += 1;
    else if (character === '}' || character === ']') depth -= 1;
  }
  return keys;
}

/** The index of the quote that closes the string opening at `start`. */
function endOfString(line: string, start: number): number {
  let index = start + 1;
  while (index < line.length && line[index] !== '"') index += line[index] === '\\' ? 2 : 1;
  return index;
}

/** The keys `line` repeats at its top level (none for a well-formed log line). */
export function repeatedKeys(line: string): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const key of topLevelKeys(line)) {
    if (seen.has(key)) repeated.push(key);
    seen.add(key);
  }
  return repeated;
}
