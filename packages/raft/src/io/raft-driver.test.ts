import { describe, expect, it, vi } from 'vitest';
import type { InboundRequest, InboundResponse } from '../ports/network-channel.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import { type DrivenRaftClient, type DrivenRaftLog, RaftDriver, RaftDriverError } from './raft-driver.js';
import { SystemTime } from './system-time.js';

class FakeClient implements DrivenRaftClient {
  readonly calls: string[] = [];
  deadlineDelayMs = 5;
  shutdownComplete = false;
  highWatermarkValue: number | undefined = undefined;
  leader: LeaderAndEpoch = { leaderId: 1, epoch: 3 };
  nextOffset = 0;
  log: FakeLog | undefined;

  poll(nowMs: number): number {
    this.calls.push('poll');
    return nowMs + this.deadlineDelayMs;
  }
  handleRequest(request: InboundRequest): void {
    this.calls.push(`request ${request.correlationId}`);
  }
  handleResponse(response: InboundResponse): void {
    this.calls.push(`response ${response.correlationId}`);
  }
  onLogFlushed(offset: number): void {
    this.calls.push(`flushed ${offset}`);
  }
  shutdown(timeoutMs: number): void {
    this.calls.push(`shutdown ${timeoutMs}`);
  }
  isShutdownComplete(): boolean {
    return this.shutdownComplete;
  }
  leaderAndEpoch(): LeaderAndEpoch {
    return this.leader;
  }
  highWatermark(): number | undefined {
    return this.highWatermarkValue;
  }
  nodeId(): number | undefined {
    return 1;
  }
  scheduleAppend(_epoch: number, records: readonly Buffer[]): number {
    this.nextOffset += records.length;
    if (this.log !== undefined) this.log.end = this.nextOffset;
    return this.nextOffset - 1;
  }
}

class FakeLog implements DrivenRaftLog {
  end = 0;
  flushed = 0;
  closed = false;
  flushes: Array<{ resolve: (offset: number) => void; reject: (error: Error) => void; end: number }> = [];

  endOffset(): number {
    return this.end;
  }
  lastFlushedOffset(): number {
    return this.flushed;
  }
  flush(): Promise<number> {
    const end = this.end;
    return new Promise((resolve, reject) => {
      this.flushes.push({
        end,
        resolve: (offset) => {
          this.flushed = offset;
          resolve(offset);
        },
        reject,
      });
    });
  }
  close(): void {
    this.closed = true;
  }
}

function request(correlationId: number): InboundRequest {
  return { correlationId, apiKey: 1, apiVersion: 17, data: {}, createdTimeMs: 0, sourceId: 2 };
}

function newDriver(): { driver: RaftDriver; client: FakeClient; log: FakeLog; stopped: Promise<void> } {
  const client = new FakeClient();
  const log = new FakeLog();
  client.log = log;
  const driver = new RaftDriver({ client, log, time: new SystemTime() });
  const stopped = driver.start();
  return { driver, client, log, stopped };
}

describe('RaftDriver', () => {
  it('hands inbound messages to the client before the poll that follows', async () => {
    const { driver, client, stopped } = newDriver();
    client.deadlineDelayMs = 60_000;
    await vi.waitFor(() => expect(client.calls).toContain('poll'));
    expect(driver.deliverRequest(request(7))).toBe(true);
    expect(
      driver.deliverResponse({ correlationId: 8, apiKey: 1, sourceId: 2, data: {}, receivedTimeMs: 0 }),
    ).toBe(true);
    // The loop sleeps until a minute from now unless the delivery wakes it.
    await vi.waitFor(() => expect(client.calls.slice(-3)).toEqual(['request 7', 'response 8', 'poll']));
    client.shutdownComplete = true;
    await driver.shutdown(1000);
    await stopped;
  });

  it('polls again when the deadline passes without any message', async () => {
    const { driver, client } = newDriver();
    client.deadlineDelayMs = 1;
    await vi.waitFor(() => expect(client.calls.filter((call) => call === 'poll').length).toBeGreaterThan(3));
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('flushes in the background and reports the flushed offset on a later turn', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 60_000;
    driver.scheduleAppend(3, [Buffer.from('a'), Buffer.from('b')]);
    await vi.waitFor(() => expect(log.flushes).toHaveLength(1));
    // Polls keep running while the flush is outstanding, and no second flush starts.
    driver.deliverRequest(request(1));
    await vi.waitFor(() => expect(client.calls.at(-1)).toBe('poll'));
    expect(client.calls).toContain('request 1');
    expect(log.flushes).toHaveLength(1);
    expect(client.calls.some((call) => call.startsWith('flushed'))).toBe(false);
    log.flushes[0]?.resolve(2);
    await vi.waitFor(() => expect(client.calls).toContain('flushed 2'));
    expect(driver.state().lastFlushedOffset).toBe(2);
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('reports the offset a flush covered, not the appends made while it was in flight', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 60_000;
    driver.scheduleAppend(3, [Buffer.from('a'), Buffer.from('b')]);
    await vi.waitFor(() => expect(log.flushes).toHaveLength(1));
    const first = log.flushes[0]!;
    expect(first.end).toBe(2);
    // Appends reach 5 while the flush of 2 is still running.
    driver.scheduleAppend(3, [Buffer.from('c'), Buffer.from('d'), Buffer.from('e')]);
    await vi.waitFor(() => expect(client.calls.at(-1)).toBe('poll'));
    expect(log.end).toBe(5);
    first.resolve(first.end);
    await vi.waitFor(() => expect(client.calls.some((call) => call.startsWith('flushed'))).toBe(true));
    expect(client.calls.filter((call) => call.startsWith('flushed'))).toEqual(['flushed 2']);
    // The rest gets a flush of its own, reported when it completes.
    await vi.waitFor(() => expect(log.flushes).toHaveLength(2));
    const second = log.flushes[1]!;
    expect(second.end).toBe(5);
    second.resolve(second.end);
    await vi.waitFor(() => expect(client.calls).toContain('flushed 5'));
    client.shutdownComplete = true;
    await driver.shutdown(1000);
  });

  it('stops with a typed error when a flush fails, and refuses messages afterwards', async () => {
    const { driver, log, stopped } = newDriver();
    driver.scheduleAppend(3, [Buffer.from('a')]);
    await vi.waitFor(() => expect(log.flushes).toHaveLength(1));
    log.flushes[0]?.reject(new Error('EIO'));
    await expect(stopped).rejects.toBeInstanceOf(RaftDriverError);
    expect(driver.deliverRequest(request(1))).toBe(false);
    expect(driver.state().running).toBe(false);
  });

  it('shuts down gracefully: client shutdown, wait for completion, then close the log', async () => {
    const { driver, client, log, stopped } = newDriver();
    client.deadlineDelayMs = 1;
    await vi.waitFor(() => expect(client.calls).toContain('poll'));
    const shutdown = driver.shutdown(60_000);
    await vi.waitFor(() => expect(client.calls).toContain('shutdown 60000'));
    expect(log.closed).toBe(false);
    client.shutdownComplete = true;
    await shutdown;
    await stopped;
    expect(log.closed).toBe(true);
  });

  it('gives up waiting for the client after the shutdown timeout', async () => {
    const { driver, log } = newDriver();
    await driver.shutdown(5);
    expect(log.closed).toBe(true);
  });

  it('bounds its inbound queue', async () => {
    const client = new FakeClient();
    const log = new FakeLog();
    const driver = new RaftDriver({ client, log, time: new SystemTime(), maxQueuedMessages: 2 });
    expect(driver.deliverRequest(request(1))).toBe(false);
    const stopped = driver.start();
    // Synchronously, before the loop's first turn can drain anything.
    expect([1, 2, 3].map((id) => driver.deliverRequest(request(id)))).toEqual([true, true, false]);
    client.shutdownComplete = true;
    await driver.shutdown(100);
    await stopped;
  });

  it('reports role, offsets and commit latency', async () => {
    const { driver, client, log } = newDriver();
    client.deadlineDelayMs = 1;
    expect(driver.state()).toMatchObject({ role: 'leader', epoch: 3, leaderId: 1, logEndOffset: 0 });
    driver.scheduleAppend(3, [Buffer.from('a')]);
    client.highWatermarkValue = 1;
    await vi.waitFor(() => expect(driver.state().commitLatency.count).toBe(1));
    expect(driver.state().commitLatency.maxMs).toBeGreaterThanOrEqual(0);
    expect(log.end).toBe(1);
    client.leader = { leaderId: 2, epoch: 4 };
    expect(driver.state().role).toBe('follower');
    client.leader = { leaderId: undefined, epoch: 5 };
    expect(driver.state().role).toBe('unattached');
    client.shutdownComplete = true;
    log.flushes[0]?.resolve(1);
    await driver.shutdown(1000);
  });
});
