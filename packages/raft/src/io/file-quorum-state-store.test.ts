import { Uuid } from '@kraft/protocol';
import { type CrashMode, type FaultOperation, MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import type { QuorumStateData } from '../ports/quorum-state-store.js';
import { SeededRandom } from '../ports/random.js';
import { CorruptQuorumStateError } from './corrupt-quorum-state-error.js';
import { FileQuorumStateStore, parseQuorumState, serializeQuorumState } from './file-quorum-state-store.js';

const DIRECTORY = '/data/__cluster_metadata-0';
const FILE = `${DIRECTORY}/quorum-state`;

/** Fails the next directory sync: the file's own sync shares the directory's path prefix. */
class CrashPointFileSystem extends MemoryFileSystem {
  failNextDirectorySync = false;

  override syncDirectory(directory: string): void {
    if (this.failNextDirectorySync) {
      this.failNextDirectorySync = false;
      throw new Error(`power fails before syncing ${directory}`);
    }
    super.syncDirectory(directory);
  }
}

function newStore(fileSystem = new CrashPointFileSystem()): {
  fileSystem: CrashPointFileSystem;
  store: FileQuorumStateStore;
} {
  fileSystem.mkdir(DIRECTORY);
  return { fileSystem, store: new FileQuorumStateStore({ fileSystem, path: FILE }) };
}

function writeRaw(fileSystem: MemoryFileSystem, text: string): void {
  const handle = fileSystem.open(FILE, { create: true });
  handle.write(Buffer.from(text, 'utf8'), 0);
  handle.sync();
  handle.close();
  fileSystem.syncDirectory(DIRECTORY);
}

const VOTED = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');

function election(overrides: Partial<QuorumStateData> = {}): QuorumStateData {
  return {
    leaderId: -1,
    leaderEpoch: 2,
    votedId: 1,
    votedDirectoryId: VOTED,
    currentVoters: null,
    ...overrides,
  };
}

describe('FileQuorumStateStore format', () => {
  it('writes the v1 file byte for byte as Kafka does', async () => {
    const { fileSystem, store } = newStore();
    await store.writeElectionState(election(), 1);
    expect(fileSystem.readFile(FILE).toString('utf8')).toBe(
      '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"b8tRS7h4TJ2Vt43Dp85v2A","data_version":1}',
    );
    await store.writeElectionState(
      election({ leaderId: 1, leaderEpoch: 3, votedId: -1, votedDirectoryId: Uuid.ZERO }),
      1,
    );
    expect(fileSystem.readFile(FILE).toString('utf8')).toBe(
      '{"leaderId":1,"leaderEpoch":3,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    );
  });

  it('writes the v0 file with clusterId, appliedOffset and the voter list', () => {
    const text = serializeQuorumState(
      election({ leaderId: 1, votedId: -1, votedDirectoryId: Uuid.ZERO, currentVoters: [1, 2, 3] }),
      0,
    );
    expect(text).toBe(
      '{"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}',
    );
    expect(serializeQuorumState(election({ currentVoters: null }), 0)).toContain('"currentVoters":null');
  });

  it('reads Kafka v0 and v1 files', () => {
    expect(
      parseQuorumState(
        '{"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}',
        FILE,
      ),
    ).toEqual({
      leaderId: 1,
      leaderEpoch: 2,
      votedId: -1,
      votedDirectoryId: Uuid.ZERO,
      currentVoters: [1, 2, 3],
    });
    const v1 = parseQuorumState(
      '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"b8tRS7h4TJ2Vt43Dp85v2A","data_version":1}',
      FILE,
    );
    expect(v1.votedDirectoryId.equals(VOTED)).toBe(true);
    expect(v1).toMatchObject({ leaderId: -1, leaderEpoch: 2, votedId: 1, currentVoters: null });
  });

  it('round-trips through the file at both versions', async () => {
    const { store } = newStore();
    expect(store.readElectionState()).toBeUndefined();
    await store.writeElectionState(election({ leaderId: 4, leaderEpoch: 9, votedId: -1 }), 1);
    expect(store.readElectionState()).toMatchObject({ leaderId: 4, leaderEpoch: 9, votedId: -1 });
    await store.writeElectionState(election({ currentVoters: [0, 1, 2] }), 0);
    expect(store.readElectionState()).toEqual({
      leaderId: -1,
      leaderEpoch: 2,
      votedId: 1,
      votedDirectoryId: Uuid.ZERO,
      currentVoters: [0, 1, 2],
    });
    expect(store.path()).toBe(FILE);
  });

  it('forgets the state on clear', async () => {
    const { fileSystem, store } = newStore();
    await store.writeElectionState(election(), 1);
    store.clear();
    fileSystem.crash();
    expect(store.readElectionState()).toBeUndefined();
  });

  it.each([
    ['empty file', ''],
    ['not JSON', '{"leaderId":1,'],
    ['a JSON array', '[1,2]'],
    [
      'missing data_version',
      '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA"}',
    ],
    [
      'data_version 2',
      '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":2}',
    ],
    ['v1 without votedDirectoryId', '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"data_version":1}'],
    [
      'v0 without currentVoters',
      '{"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"data_version":0}',
    ],
    [
      'an epoch as a string',
      '{"leaderId":-1,"leaderEpoch":"2","votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    ],
    [
      'an epoch beyond int32',
      '{"leaderId":-1,"leaderEpoch":2147483648,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    ],
    [
      'a fractional id',
      '{"leaderId":1.5,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    ],
    [
      'a bad uuid',
      '{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"not-a-uuid","data_version":1}',
    ],
    [
      'a bad voter entry',
      '{"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"id":1}],"data_version":0}',
    ],
  ])('refuses a file with %s with a typed startup error', (_name, text) => {
    const { fileSystem, store } = newStore();
    writeRaw(fileSystem, text);
    expect(() => store.readElectionState()).toThrow(CorruptQuorumStateError);
  });

  it('names the file and says what the operator can do, and at what risk', () => {
    const { fileSystem, store } = newStore();
    writeRaw(fileSystem, '{"leaderId":');
    let error: unknown;
    try {
      store.readElectionState();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CorruptQuorumStateError);
    const { message } = error as CorruptQuorumStateError;
    expect(message).toContain(`invalid quorum state file '${FILE}': not JSON.`);
    expect(message).toContain(`Restore '${FILE}' from a backup`);
    expect(message).toContain('Delete it only if the node may forget its vote');
    expect(message).toContain('vote again in an epoch it has already voted in');
  });

  it('refuses invalid UTF-8 and oversized files before parsing them', () => {
    const { fileSystem, store } = newStore();
    const handle = fileSystem.open(FILE, { create: true });
    handle.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 0);
    handle.close();
    expect(() => store.readElectionState()).toThrow(/UTF-8/);
    const large = fileSystem.open(FILE, { create: true });
    large.truncate(2 * 1024 * 1024);
    large.close();
    expect(() => store.readElectionState()).toThrow(/byte limit/);
  });
});

describe('FileQuorumStateStore crash safety (R10)', () => {
  // The write's steps, in order; a fault on step k means the crash happens right after step k-1.
  const fileStep = (operation: FaultOperation) => ({
    operation,
    arm: (fileSystem: CrashPointFileSystem) =>
      fileSystem.injectFault(operation, { pathIncludes: 'quorum-state.tmp' }),
  });
  const steps = [
    fileStep('open'),
    fileStep('truncate'),
    fileStep('write'),
    fileStep('sync'),
    fileStep('rename'),
    {
      operation: 'directory sync',
      arm: (fileSystem: CrashPointFileSystem) => {
        fileSystem.failNextDirectorySync = true;
      },
    },
  ];
  const modes: CrashMode[] = ['drop-unsynced', 'tear-unsynced', 'garble-unsynced'];
  const oldState = election({ leaderId: 2, leaderEpoch: 5, votedId: -1, votedDirectoryId: Uuid.ZERO });
  const newState = election({ leaderId: -1, leaderEpoch: 6, votedId: 1 });

  for (const mode of modes) {
    for (const [index, step] of steps.entries()) {
      it(`leaves the old or the new state when power fails before step ${index} (${step.operation}), ${mode}`, async () => {
        const random = new SeededRandom(index * 31 + mode.length);
        const { fileSystem, store } = newStore();
        await store.writeElectionState(oldState, 1);
        // A leftover temp file from an earlier interrupted write must not confuse anything.
        const leftover = fileSystem.open(`${FILE}.tmp`, { create: true });
        leftover.write(Buffer.from('{"garbage'), 0);
        leftover.close();
        step.arm(fileSystem);
        await expect(store.writeElectionState(newState, 1)).rejects.toThrow();
        fileSystem.crash({ mode, random: () => random.nextInt(1_000_000) / 1_000_000 });
        const recovered = new FileQuorumStateStore({ fileSystem, path: FILE }).readElectionState();
        expect(recovered?.leaderEpoch).toBe(oldState.leaderEpoch);
        // The store still works after the crash, and a completed write survives the next one.
        await store.writeElectionState(newState, 1);
        fileSystem.crash({ mode, random: () => random.nextInt(1_000_000) / 1_000_000 });
        expect(store.readElectionState()?.leaderEpoch).toBe(newState.leaderEpoch);
      });
    }

    it(`keeps a completed write across power loss (${mode})`, async () => {
      const { fileSystem, store } = newStore();
      await store.writeElectionState(oldState, 1);
      await store.writeElectionState(newState, 1);
      fileSystem.crash({ mode, random: () => 0.3 });
      expect(store.readElectionState()).toMatchObject({ leaderEpoch: 6, votedId: 1 });
    });
  }

  it('a first write interrupted before the directory sync leaves no state (a fresh node)', async () => {
    const { fileSystem, store } = newStore();
    fileSystem.failNextDirectorySync = true;
    await expect(store.writeElectionState(newState, 1)).rejects.toThrow();
    fileSystem.crash();
    expect(store.readElectionState()).toBeUndefined();
  });
});
