import { describe, expect, it } from 'vitest';
import { FileSystemError } from '../errors/file-system-error.js';
import { MemoryFileSystem } from './memory-file-system.js';

function setup() {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir('/data');
  return fileSystem;
}

/** A file with `synced` written and synced, then `unsynced` appended, its entry durable. */
function fileWith(fileSystem: MemoryFileSystem, synced: string, unsynced: string) {
  const handle = fileSystem.open('/data/file', { create: true });
  fileSystem.syncDirectory('/data');
  handle.write(Buffer.from(synced), 0);
  handle.sync();
  handle.write(Buffer.from(unsynced), synced.length);
  return handle;
}

describe('MemoryFileSystem crash semantics', () => {
  it('drops bytes written after the last sync', () => {
    const fileSystem = setup();
    fileWith(fileSystem, 'durable', '-lost');
    expect(fileSystem.readFile('/data/file').toString()).toBe('durable-lost');
    fileSystem.crash();
    expect(fileSystem.readFile('/data/file').toString()).toBe('durable');
  });

  it('tears unsynced bytes: a prefix survives', () => {
    const fileSystem = setup();
    fileWith(fileSystem, 'durable', '0123456789');
    fileSystem.crash({ mode: 'tear-unsynced', random: () => 0.35 });
    const content = fileSystem.readFile('/data/file').toString();
    // floor(0.35 * (10 + 1)) = 3 of the 10 unsynced bytes survive.
    expect(content).toBe('durable012');
  });

  it('garbles unsynced bytes but keeps synced ones intact', () => {
    const fileSystem = setup();
    const unsynced = 'x'.repeat(200);
    fileWith(fileSystem, 'durable', unsynced);
    let draw = 0;
    const random = () => {
      draw += 1;
      return (draw % 7) / 7;
    };
    fileSystem.crash({ mode: 'garble-unsynced', random });
    const content = fileSystem.readFile('/data/file');
    expect(content.subarray(0, 7).toString()).toBe('durable');
    expect(content.length).toBe(7 + unsynced.length);
    expect(content.subarray(7).toString()).not.toBe(unsynced);
  });

  it('restores synced bytes that were overwritten or truncated without a sync', () => {
    const fileSystem = setup();
    const handle = fileWith(fileSystem, 'abcdefgh', '');
    handle.write(Buffer.from('XY'), 2);
    handle.truncate(5);
    expect(fileSystem.readFile('/data/file').toString()).toBe('abXYe');
    fileSystem.crash();
    expect(fileSystem.readFile('/data/file').toString()).toBe('abcdefgh');
  });

  it.each(['drop-unsynced', 'tear-unsynced'] as const)(
    'loses an unsynced truncation while keeping later synced writes to other files (%s)',
    (mode) => {
      const fileSystem = setup();
      const segment = fileWith(fileSystem, 'batch-1|batch-2|batch-3|', '');
      // Truncate the segment and append new bytes, neither synced ...
      segment.truncate(8);
      segment.write(Buffer.from('batch-X|'), 8);
      // ... then replace another file durably (a checkpoint: write, sync, rename, directory sync).
      const checkpoint = fileSystem.open('/data/checkpoint.tmp', { create: true });
      checkpoint.write(Buffer.from('epoch 3 at 1'), 0);
      checkpoint.sync();
      fileSystem.rename('/data/checkpoint.tmp', '/data/checkpoint');
      fileSystem.syncDirectory('/data');
      fileSystem.crash({ mode, random: () => 0.99 });
      // The truncation is gone: the removed bytes are back, the new ones lost.
      expect(fileSystem.readFile('/data/file').toString()).toBe('batch-1|batch-2|batch-3|');
      expect(fileSystem.readFile('/data/checkpoint').toString()).toBe('epoch 3 at 1');
    },
  );

  it('keeps a synced overwrite', () => {
    const fileSystem = setup();
    const handle = fileWith(fileSystem, 'abcdefgh', '');
    handle.write(Buffer.from('XY'), 2);
    handle.sync();
    fileSystem.crash();
    expect(fileSystem.readFile('/data/file').toString()).toBe('abXYefgh');
  });

  it('loses a new file whose directory was not synced, even if the file was', () => {
    const fileSystem = setup();
    const handle = fileSystem.open('/data/new', { create: true });
    handle.write(Buffer.from('content'), 0);
    handle.sync();
    fileSystem.crash();
    expect(fileSystem.exists('/data/new')).toBe(false);
  });

  it('makes a rename durable only after the directory sync', () => {
    const fileSystem = setup();
    const handle = fileSystem.open('/data/snapshot.part', { create: true });
    handle.write(Buffer.from('snapshot'), 0);
    handle.sync();
    fileSystem.syncDirectory('/data');
    fileSystem.rename('/data/snapshot.part', '/data/snapshot.checkpoint');
    fileSystem.crash();
    expect(fileSystem.list('/data')).toEqual(['snapshot.part']);

    const again = fileSystem.open('/data/snapshot.part');
    again.close();
    fileSystem.rename('/data/snapshot.part', '/data/snapshot.checkpoint');
    fileSystem.syncDirectory('/data');
    fileSystem.crash();
    expect(fileSystem.list('/data')).toEqual(['snapshot.checkpoint']);
    expect(fileSystem.readFile('/data/snapshot.checkpoint').toString()).toBe('snapshot');
  });

  it('syncs only the direct entries of the directory named', () => {
    const fileSystem = setup();
    fileSystem.mkdir('/database');
    fileSystem.mkdir('/data/sub');
    for (const path of ['/data/direct', '/database/sibling', '/data/sub/nested', '/top']) {
      fileSystem.open(path, { create: true }).close();
    }
    fileSystem.syncDirectory('/data');
    fileSystem.crash();
    expect(fileSystem.exists('/data/direct')).toBe(true);
    expect(fileSystem.exists('/database/sibling')).toBe(false);
    expect(fileSystem.exists('/data/sub/nested')).toBe(false);
    expect(fileSystem.exists('/top')).toBe(false);
    fileSystem.open('/top', { create: true }).close();
    fileSystem.syncDirectory('/');
    fileSystem.crash();
    expect(fileSystem.exists('/top')).toBe(true);
  });

  it('makes an unlink durable only after the directory sync', () => {
    const fileSystem = setup();
    fileWith(fileSystem, 'durable', '');
    fileSystem.unlink('/data/file');
    fileSystem.crash();
    expect(fileSystem.exists('/data/file')).toBe(true);
    fileSystem.unlink('/data/file');
    fileSystem.syncDirectory('/data');
    fileSystem.crash();
    expect(fileSystem.exists('/data/file')).toBe(false);
  });

  it('invalidates handles opened before a crash', () => {
    const fileSystem = setup();
    const handle = fileWith(fileSystem, 'durable', '');
    fileSystem.crash();
    expect(() => handle.read(Buffer.alloc(1), 0, 1, 0)).toThrow(FileSystemError);
    expect(() => handle.size()).toThrow(FileSystemError);
    const reopened = fileSystem.open('/data/file');
    const target = Buffer.alloc(7);
    expect(reopened.read(target, 0, 7, 0)).toBe(7);
    expect(target.toString()).toBe('durable');
  });

  it('injects faults once, by operation and path', () => {
    const fileSystem = setup();
    const handle = fileWith(fileSystem, 'durable', '');
    fileSystem.injectFault('sync', { pathIncludes: 'file', code: 'EIO' });
    expect(() => handle.sync()).toThrow(expect.objectContaining({ code: 'EIO' }));
    handle.sync();
    fileSystem.injectFault('write', { code: 'ENOSPC' });
    expect(() => handle.write(Buffer.from('x'), 0)).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
  });

  it('refuses to open a missing file without create, or in a missing directory', () => {
    const fileSystem = setup();
    expect(() => fileSystem.open('/data/missing')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => fileSystem.open('/nowhere/file', { create: true })).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
