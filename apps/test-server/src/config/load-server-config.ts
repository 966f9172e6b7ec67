import { readFileSync } from 'node:fs';
import { parse } from 'dot-properties';
import { ConfigError } from './config-error.js';
import { type ParsedServerConfig, parseServerConfig } from './server-config.js';

/** Java `.properties` text → a flat key/value record (later keys win, as in `Properties.load`). */
export function parseProperties(text: string): Record<string, string> {
  const tree = parse(text);
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') properties[key] = value;
  }
  return properties;
}

/** Reads and validates a server properties file; an unreadable file is a `ConfigError` too. */
export function loadServerConfig(path: string): ParsedServerConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError('--config', path, `expected a readable properties file (${reason})`);
  }
  return parseServerConfig(parseProperties(text));
}
