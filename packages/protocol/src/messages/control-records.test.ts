import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { Uuid } from '../primitives/uuid.js';
import { KRaftVersionRecord } from './kraft-version-record.js';
import { LeaderChangeMessage } from './leader-change-message.js';
import { SnapshotFooterRecord } from './snapshot-footer-record.js';
import { SnapshotHeaderRecord } from './snapshot-header-record.js';
import { VotersRecord } from './voters-record.js';

const hex = (text: string): Buffer => Buffer.from(text, 'hex');

describe('control records (kraft-formats.md §9 C)', () => {
  it('decodes and re-encodes the SnapshotHeaderRecord value of vector C', () => {
    // Record value inside the header batch: version 0, LastContainedLogTimestamp 1700000000000, no tags.
    const value = hex('0000' + '0000018bcfe56800' + '00');
    const data = SnapshotHeaderRecord.read(value, 0);
    expect(data).toEqual({ version: 0, lastContainedLogTimestamp: 1700000000000n });
    expect(SnapshotHeaderRecord.write(data, 0).toString('hex')).toBe(value.toString('hex'));
  });

  it('decodes and re-encodes the SnapshotFooterRecord value of vector C', () => {
    const value = hex('000000');
    expect(SnapshotFooterRecord.read(value, 0)).toEqual({ version: 0 });
    expect(SnapshotFooterRecord.write({ version: 0 }, 0).toString('hex')).toBe('000000');
  });

  it('finds the control record values inside the batches of vector C', () => {
    const headerBatch = hex(
      '0000000000000000000000470000000202c7ac78040020000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000012a00000008000000031600000000018bcfe568000000',
    );
    // Record: length, attributes, tsDelta, offsetDelta, keyLen 4 (08), key 0000 0003, valueLen 11 (16), value.
    const value = headerBatch.subarray(headerBatch.length - 12, headerBatch.length - 1);
    expect(SnapshotHeaderRecord.read(value, 0).lastContainedLogTimestamp).toBe(1700000000000n);
  });

  it('round-trips a LeaderChangeMessage at version 0 and drops nothing', () => {
    const data = LeaderChangeMessage.defaults({
      leaderId: 1,
      voters: [
        { voterId: 1, voterDirectoryId: Uuid.ZERO },
        { voterId: 2, voterDirectoryId: Uuid.ZERO },
      ],
      grantingVoters: [{ voterId: 1, voterDirectoryId: Uuid.ZERO }],
    });
    const bytes = LeaderChangeMessage.write(data, 0);
    expect(bytes.toString('hex')).toBe(
      '0000' + '00000001' + '03' + '0000000100' + '0000000200' + '02' + '0000000100' + '00',
    );
    expect(LeaderChangeMessage.read(bytes, 0)).toEqual(data);
  });

  it('refuses a voter directory id at LeaderChangeMessage version 0', () => {
    const data = LeaderChangeMessage.defaults({
      voters: [{ voterId: 1, voterDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A') }],
    });
    expect(() => LeaderChangeMessage.write(data, 0)).toThrow(UnsupportedVersionError);
    expect(LeaderChangeMessage.read(LeaderChangeMessage.write(data, 1), 1)).toEqual(data);
  });

  it('round-trips KRaftVersionRecord and VotersRecord', () => {
    const kraftVersion = { version: 0, kRaftVersion: 1 };
    expect(KRaftVersionRecord.write(kraftVersion, 0).toString('hex')).toBe('0000000100');
    const voters = VotersRecord.defaults({
      voters: [
        {
          voterId: 1,
          voterDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
          endpoints: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }],
          kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
        },
      ],
    });
    const bytes = VotersRecord.write(voters, 0);
    expect(bytes.toString('hex')).toBe(
      '0000' +
        '02' +
        '00000001' +
        '6fcb514bb8784c9d95b78dc3a7ce6fd8' +
        '02' +
        '0b434f4e54524f4c4c4552' +
        '0a6c6f63616c686f7374' +
        '2385' +
        '00' +
        '0000' +
        '0001' +
        '00' +
        '00' +
        '00',
    );
    expect(VotersRecord.read(bytes, 0)).toEqual(voters);
  });

  it('reports truncation with the field path', () => {
    const voter = {
      voterId: 3,
      voterDirectoryId: Uuid.ZERO,
      endpoints: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }],
      kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
    };
    const bytes = VotersRecord.write(VotersRecord.defaults({ voters: [voter] }), 0);
    try {
      VotersRecord.read(bytes.subarray(0, bytes.length - 3), 0);
      expect.unreachable();
    } catch (error) {
      expect(ProtocolError.isProtocolError(error)).toBe(true);
      expect((error as ProtocolError).fieldPath).toMatch(/^VotersRecord\.voters\[0\]\.kRaftVersionFeature/);
    }
    expect(() => VotersRecord.read(bytes.subarray(0, 10), 0)).toThrow(
      /VotersRecord\.voters: array of 1 elements/,
    );
  });
});
