/**
 * Our OS lock against Java's `FileChannel.tryLock`, which Kafka takes on `<log dir>/.lock`: on
 * Linux both are fcntl record locks (ours open-file-description, Java's process-associated) and
 * conflict, so a kraft server and a Kafka server cannot share a log dir (docs/adr/0012). Runs
 * where a `java` that can launch a single source file is on PATH (JDK 11+), and skips elsewhere.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from './node-file-system.js';

const JAVA_TRY_LOCK = `
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

public class TryLock {
  public static void main(String[] args) throws Exception {
    try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      FileLock lock = channel.tryLock();
      System.out.println(lock == null ? "busy" : "locked");
      if (lock != null) Thread.sleep(Long.parseLong(args[1]));
    }
  }
}
`;

const javaRuns = process.platform === 'linux' && spawnSync('java', ['-version']).status === 0;

describe.skipIf(!javaRuns)("NodeFileSystem's lock against Java's FileChannel.tryLock (Linux)", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function javaProgram(): string {
    dir = mkdtempSync(join(tmpdir(), 'kraft-java-lock-'));
    const source = join(dir, 'TryLock.java');
    writeFileSync(source, JAVA_TRY_LOCK);
    return source;
  }

  it('Java cannot lock .lock while we hold it', () => {
    const source = javaProgram();
    const path = join(dir, '.lock');
    const lock = new NodeFileSystem().tryLockFile(path);
    expect(lock?.isHeld()).toBe(true);
    const java = spawnSync('java', [source, path, '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(java.stdout.trim()).toBe('busy');
    lock?.release();
  });

  it('we cannot lock .lock while Java holds it, and can once it exits', async () => {
    const source = javaProgram();
    const path = join(dir, '.lock');
    const java = spawn('java', [source, path, '60000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const firstLine = await new Promise<string>((resolve) =>
        java.stdout?.once('data', (data) => resolve(String(data))),
      );
      expect(firstLine.trim()).toBe('locked');
      const fileSystem = new NodeFileSystem();
      expect(fileSystem.tryLockFile(path)).toBeUndefined();
      const exited = new Promise((resolve) => java.once('exit', resolve));
      java.kill('SIGKILL');
      await exited;
      const lock = fileSystem.tryLockFile(path);
      expect(lock?.isHeld()).toBe(true);
      lock?.release();
    } finally {
      java.kill('SIGKILL');
    }
  });
});
