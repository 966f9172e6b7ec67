import type { FileSystem } from '@kraft/records';
import { InvalidConfigurationError } from '../errors/log-errors.js';

/** Largest small metadata file we agree to read (checkpoints, properties): bounds the allocation. */
const MAX_SMALL_FILE_BYTES = 16 * 1024 * 1024;

export function parentDirectory(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

export function joinPath(directory: string, name: string): string {
  return directory.endsWith('/') ? `${directory}${name}` : `${directory}/${name}`;
}

/**
 * Replaces `path` atomically, as Kafka's checkpoint files do: write `<path>.tmp`, fdatasync it,
 * rename it over `path`, then fsync the directory so the rename itself survives a power loss.
 * After a crash at any step the file holds either its old or its new content, never a mix.
 */
export function writeFileAtomically(fileSystem: FileSystem, path: string, content: Uint8Array): void {
  const handle = openTemporaryCopy(fileSystem, path, content);
  try {
    handle.sync();
  } finally {
    handle.close();
  }
  fileSystem.rename(temporaryPath(path), path);
  fileSystem.syncDirectory(parentDirectory(path));
}

/**
 * `writeFileAtomically` with both syncs off the event loop (libuv's thread pool), for writes on
 * a latency path (the election state): the writes and the rename are page-cache operations.
 *
 * `stillCurrent`, asked once the `.tmp` is synced, lets a synchronous write of the same file made
 * meanwhile supersede this one: that write went through the same `.tmp` and renamed it already,
 * so when it answers false this write stops before its rename (it has nothing left to rename).
 */
export async function writeFileAtomicallyAsync(
  fileSystem: FileSystem,
  path: string,
  content: Uint8Array,
  stillCurrent: () => boolean = () => true,
): Promise<void> {
  const handle = openTemporaryCopy(fileSystem, path, content);
  try {
    await handle.syncAsync();
  } finally {
    handle.close();
  }
  if (!stillCurrent()) return;
  fileSystem.rename(temporaryPath(path), path);
  await fileSystem.syncDirectoryAsync(parentDirectory(path));
}

/** The temporary file (`<path>.tmp`) the atomic writes of `path` go through. */
export function temporaryPath(path: string): string {
  return `${path}.tmp`;
}

/** `<path>.tmp` holding exactly `content`, still open and not yet synced. */
function openTemporaryCopy(fileSystem: FileSystem, path: string, content: Uint8Array) {
  const handle = fileSystem.open(temporaryPath(path), { create: true });
  try {
    handle.truncate(0);
    handle.write(content, 0);
    return handle;
  } catch (error) {
    handle.close();
    throw error;
  }
}

/** Reads a whole small file, or returns undefined when it does not exist. */
export function readSmallFile(fileSystem: FileSystem, path: string): Buffer | undefined {
  if (!fileSystem.exists(path)) return undefined;
  const handle = fileSystem.open(path, { readOnly: true });
  try {
    const size = handle.size();
    if (size > MAX_SMALL_FILE_BYTES) {
      throw new InvalidConfigurationError(
        `${path} is ${size} bytes, more than the ${MAX_SMALL_FILE_BYTES} allowed`,
      );
    }
    const bytes = Buffer.alloc(size);
    const count = handle.read(bytes, 0, size, 0);
    return bytes.subarray(0, count);
  } finally {
    handle.close();
  }
}

/** Removes a file and makes the removal durable. */
export function deleteFileDurably(fileSystem: FileSystem, path: string): void {
  fileSystem.unlink(path);
  fileSystem.syncDirectory(parentDirectory(path));
}
