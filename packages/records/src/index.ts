export { FileSystemError } from './errors/file-system-error.js';
export type { FileHandle, FileSystem, OpenOptions } from './fs/file-system.js';
export {
  type CrashMode,
  type CrashOptions,
  type FaultOperation,
  MemoryFileSystem,
} from './fs/memory-file-system.js';
export { NodeFileSystem } from './fs/node-file-system.js';
