import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeMetaProperties } from '@kraft/log';
import { Uuid } from '@kraft/protocol';
import { NodeFileSystem } from '@kraft/records';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readControllerRegistration } from './controller-registration.js';

const DIRECTORY_ID = Uuid.fromString('wZoXPqWoSu6F6c8MkmdyAg');
const fileSystem = new NodeFileSystem();
let metadataDir: string;

beforeEach(() => {
  metadataDir = mkdtempSync(join(tmpdir(), 'kraft-add-controller-'));
});
afterEach(() => rmSync(metadataDir, { recursive: true, force: true }));

/** `null`: a meta.properties without a directory id. */
function formatted(directoryId: Uuid | null = DIRECTORY_ID): void {
  writeMetaProperties(fileSystem, metadataDir, {
    version: 1,
    clusterId: 'Ig-WB32JRqqzct3VafTr0w',
    nodeId: 5,
    ...(directoryId === null ? {} : { directoryId }),
  });
}

/** Kafka's MetadataQuorumCommandUnitTest controller: two controller listeners, advertised under another name. */
function kafkaTestConfig(): Record<string, string> {
  return {
    'metadata.log.dir': metadataDir,
    'log.dirs': metadataDir,
    'process.roles': 'controller,broker',
    'node.id': '5',
    'controller.listener.names': 'CONTROLLER,CONTROLLER_SSL',
    listeners: 'CONTROLLER://:9093,CONTROLLER_SSL://:9094',
    'advertised.listeners': 'CONTROLLER://example.com:9093,CONTROLLER_SSL://example.com:9094',
  };
}

function registrationError(properties: Record<string, string>): string {
  try {
    readControllerRegistration(properties, fileSystem);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('add-controller reads the controller from its config', () => {
  it("takes the node id, the directory id from meta.properties and every controller listener, advertised over bound (Kafka's test)", () => {
    formatted();
    const registration = readControllerRegistration(kafkaTestConfig(), fileSystem);
    expect({ ...registration, directoryId: registration.directoryId.toString() }).toEqual({
      controllerId: 5,
      directoryId: DIRECTORY_ID.toString(),
      metadataDirectory: metadataDir,
      endpoints: [
        { name: 'CONTROLLER', host: 'example.com', port: 9093 },
        { name: 'CONTROLLER_SSL', host: 'example.com', port: 9094 },
      ],
    });
  });

  it('reads a test server config: no process.roles, log.dirs only, a listener on every interface advertised as localhost', () => {
    formatted();
    const registration = readControllerRegistration(
      {
        'node.id': '4',
        listeners: 'PLAINTEXT://:9095',
        'controller.listener.names': 'plaintext',
        'controller.quorum.voters': '1@localhost:9092',
        'log.dirs': `${metadataDir},/elsewhere`,
      },
      fileSystem,
    );
    expect(registration.controllerId).toBe(4);
    expect(registration.metadataDirectory).toBe(metadataDir);
    expect(registration.endpoints).toEqual([{ name: 'PLAINTEXT', host: 'localhost', port: 9095 }]);
  });

  it('prefers metadata.log.dir, then the first of log.dirs, then log.dir', () => {
    formatted();
    const base = { 'node.id': '1', listeners: 'C://h:1', 'controller.listener.names': 'C' };
    const dirOf = (extra: Record<string, string>) =>
      readControllerRegistration({ ...base, ...extra }, fileSystem).metadataDirectory;
    expect(dirOf({ 'metadata.log.dir': metadataDir, 'log.dirs': '/tmp/log,/tmp/log2' })).toBe(metadataDir);
    expect(dirOf({ 'log.dirs': `${metadataDir},/tmp/log2`, 'log.dir': '/tmp/other' })).toBe(metadataDir);
    expect(dirOf({ 'log.dir': metadataDir })).toBe(metadataDir);
    expect(registrationError(base)).toBe(
      'Neither metadata.log.dir nor log.dirs were found. Is this a valid controller configuration file?',
    );
  });

  it("refuses what is not a controller's config with Kafka's messages", () => {
    formatted();
    const config = kafkaTestConfig();
    const without = (key: string) =>
      Object.fromEntries(Object.entries(config).filter(([name]) => name !== key));
    expect(registrationError(without('node.id'))).toBe(
      'node.id not found in configuration file. Is this a valid controller configuration file?',
    );
    expect(registrationError({ ...config, 'node.id': '-4' })).toBe(
      'node.id was negative in configuration file. Is this a valid controller configuration file?',
    );
    expect(registrationError({ ...config, 'node.id': 'four' })).toBe(
      "node.id 'four' is not a 32-bit integer. Is this a valid controller configuration file?",
    );
    expect(registrationError({ ...config, 'process.roles': 'broker' })).toBe(
      "process.roles did not contain 'controller' in configuration file. Is this a valid controller configuration file?",
    );
    expect(registrationError(without('controller.listener.names'))).toBe(
      'controller.listener.names was not found. Is this a valid controller configuration file?',
    );
    expect(registrationError({ ...config, 'controller.listener.names': 'CONTROLLER,CONTROLLER2' })).toBe(
      'Cannot find information about controller listener name: CONTROLLER2',
    );
    expect(registrationError({ ...config, listeners: 'CONTROLLER:9093' })).toContain(
      'listeners: listeners: expected NAME://host:port, got "CONTROLLER:9093"',
    );
  });

  it('requires a formatted metadata log dir with a directory id', () => {
    expect(registrationError(kafkaTestConfig())).toBe(`Unable to read meta.properties from ${metadataDir}`);
    formatted(null);
    expect(registrationError(kafkaTestConfig())).toBe(`No directory id found in ${metadataDir}`);
    writeFileSync(join(metadataDir, 'meta.properties'), 'version=7\n');
    expect(registrationError(kafkaTestConfig())).toBe(
      `Unable to read meta.properties from ${metadataDir}: meta.properties: unsupported version '7'`,
    );
  });
});
