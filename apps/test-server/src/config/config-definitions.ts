import { ConfigError } from './config-error.js';

/**
 * Typed readers for Kafka's config types (`ConfigDef.Type`): INT is a 32-bit integer, LONG is a
 * 64-bit integer (we require a safe integer), BOOLEAN is true/false in any case, LIST is
 * comma-separated with entries trimmed. Values are trimmed first, as Kafka does.
 */

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export interface IntegerBounds {
  readonly minimum?: number;
  readonly maximum?: number;
}

function describeBounds(kind: string, bounds: IntegerBounds): string {
  const { minimum, maximum } = bounds;
  if (minimum !== undefined && maximum !== undefined) return `${kind} in [${minimum}, ${maximum}]`;
  if (minimum !== undefined) return `${kind} >= ${minimum}`;
  if (maximum !== undefined) return `${kind} <= ${maximum}`;
  return kind;
}

function parseIntegerText(key: string, text: string, kind: string, bounds: IntegerBounds): number {
  const trimmed = text.trim();
  const value = /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  const expected = `expected ${describeBounds(kind, bounds)}`;
  if (!Number.isSafeInteger(value)) throw new ConfigError(key, text, expected);
  if (bounds.minimum !== undefined && value < bounds.minimum) throw new ConfigError(key, text, expected);
  if (bounds.maximum !== undefined && value > bounds.maximum) throw new ConfigError(key, text, expected);
  return value;
}

export function parseInt32(key: string, text: string, bounds: IntegerBounds = {}): number {
  return parseIntegerText(key, text, 'a 32-bit integer', {
    minimum: Math.max(bounds.minimum ?? INT32_MIN, INT32_MIN),
    maximum: Math.min(bounds.maximum ?? INT32_MAX, INT32_MAX),
  });
}

export function parseInt64(key: string, text: string, bounds: IntegerBounds = {}): number {
  return parseIntegerText(key, text, 'an integer', bounds);
}

export function parseBoolean(key: string, text: string): boolean {
  const lowered = text.trim().toLowerCase();
  if (lowered === 'true') return true;
  if (lowered === 'false') return false;
  throw new ConfigError(key, text, 'expected true or false');
}

export function parseList(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  return trimmed.split(',').map((entry) => entry.trim());
}

export interface HostAndPort {
  readonly host: string;
  readonly port: number;
}

/** `host:port`, `[ipv6]:port`; an empty host means every interface (Kafka's `PLAINTEXT://:9092`). */
export function parseHostAndPort(key: string, entryText: string, wholeValue: string): HostAndPort {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]*):(\d{1,5})$/.exec(entryText);
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65535) {
    throw new ConfigError(key, wholeValue, `'${entryText}' is not host:port with a port in [0, 65535]`);
  }
  const host = (match[1] as string).replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}
