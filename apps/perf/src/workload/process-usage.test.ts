import { describe, expect, it } from 'vitest';
import { parseProcessUsage, readProcessUsage } from './process-usage.js';

describe('parseProcessUsage', () => {
  it('reads utime + stime after the command name, VmHWM, write_bytes, read_bytes and rchar', () => {
    // A command name with a space and a parenthesis: fields count from its last ')'.
    const stat = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 12345 0 0';
    const status = 'Name:\tnode\nVmPeak:\t  900000 kB\nVmHWM:\t  163840 kB\nVmRSS:\t  120000 kB\n';
    const io = 'rchar: 10\nwchar: 20\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n';
    expect(parseProcessUsage(stat, status, io, 100)).toEqual({
      cpuSeconds: 3,
      peakRssBytes: 163840 * 1024,
      writeBytes: 8192,
      readBytes: 4096,
      readChars: 10,
    });
  });

  it('reads this very process from /proc, and nothing for a pid that is gone', () => {
    const usage = readProcessUsage(process.pid);
    expect(usage?.peakRssBytes).toBeGreaterThan(0);
    expect(usage?.cpuSeconds).toBeGreaterThan(0);
    expect(readProcessUsage(2 ** 22 + 1)).toBeUndefined();
  });
});
