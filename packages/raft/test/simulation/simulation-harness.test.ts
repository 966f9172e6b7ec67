import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InboundRequest, InboundResponse } from '../../src/ports/network-channel.js';
import { describeEvent, EventScheduler } from '../../src/testing/event-scheduler.js';
import {
  BROKER_NOT_AVAILABLE,
  MessageRouter,
  REQUEST_TIMED_OUT,
  type RouterEndpoint,
} from '../../src/testing/message-router.js';
import { SimulationRandom } from '../../src/testing/simulation-random.js';
import { parseCliArguments } from './simulation-cli.js';
import { Trace } from './trace.js';

describe('EventScheduler', () => {
  it('runs events by deadline, then by scheduling order, and skips cancelled ones', () => {
    const scheduler = new EventScheduler();
    const order: string[] = [];
    scheduler.scheduleAt(5, 'b', () => {
      order.push('b');
    });
    scheduler.scheduleAt(1, 'a', () => {
      order.push('a');
    });
    scheduler.scheduleAt(5, 'c', () => {
      order.push('c');
    });
    scheduler.scheduleAt(3, 'x', () => {
      order.push('x');
    }).cancelled = true;
    for (let event = scheduler.takeNext(); event !== undefined; event = scheduler.takeNext()) {
      void event.run();
      order.push(`@${scheduler.nowMs()}`);
    }
    expect(order).toEqual(['a', '@1', 'b', '@5', 'c', '@5']);
  });

  it('never schedules into the past', () => {
    const scheduler = new EventScheduler();
    scheduler.scheduleAt(10, 'later', () => {});
    scheduler.takeNext();
    expect(scheduler.scheduleAt(2, 'past', () => {}).atMs).toBe(10);
  });

  it('builds a lazy description only when it is read, and rejects a non-finite deadline', () => {
    const scheduler = new EventScheduler();
    let built = 0;
    const event = scheduler.schedule(
      5,
      () => {
        built += 1;
        return 'timeout 1>2 api1 #7';
      },
      () => {},
    );
    expect(built).toBe(0);
    expect(describeEvent(event)).toBe('timeout 1>2 api1 #7');
    expect(built).toBe(1);
    expect(describeEvent(scheduler.schedule(1, 'poll 0', () => {}))).toBe('poll 0');
    expect(() =>
      scheduler.scheduleAt(
        Number.NaN,
        () => 'bad',
        () => {},
      ),
    ).toThrow(/'bad' scheduled at NaN/);
  });

  it('keeps heap order over many random events', () => {
    const scheduler = new EventScheduler();
    const random = new SimulationRandom(7);
    for (let index = 0; index < 2000; index += 1)
      scheduler.scheduleAt(random.nextInt(500), `e${index}`, () => {});
    let previous = { atMs: -1, id: -1 };
    for (let event = scheduler.takeNext(); event !== undefined; event = scheduler.takeNext()) {
      expect(event.atMs > previous.atMs || (event.atMs === previous.atMs && event.id > previous.id)).toBe(
        true,
      );
      previous = event;
    }
  });
});

describe('Trace', () => {
  it('hashes equal traces equally and keeps a bounded tail', () => {
    const first = new Trace(3);
    const second = new Trace(3);
    for (const trace of [first, second])
      for (let index = 0; index < 5; index += 1) trace.record(index, `line ${index}`);
    expect(first.finish()).toBe(second.finish());
    expect(first.tail()).toEqual(['2 line 2', '3 line 3', '4 line 4']);
    const third = new Trace(3);
    third.record(0, 'other');
    expect(third.finish()).not.toBe(first.finish());
  });

  it('hashes exactly the lines "<time> <line>\\n", however they are chunked', () => {
    // More text than one hash chunk, so the digest spans several buffered updates.
    const trace = new Trace(4);
    const expected = createHash('sha256');
    for (let index = 0; index < 10_000; index += 1) {
      const line = `deliver request ${index % 5}>${index % 3} api1 #${index}`;
      trace.record(index * 3, line);
      expected.update(`${index * 3} ${line}\n`);
    }
    expect(trace.lines()).toBe(10_000);
    expect(trace.finish()).toBe(expected.digest('hex'));
    expect(trace.finish()).toBe(trace.finish());
    expect(trace.tail(2)).toEqual([
      '29994 deliver request 3>2 api1 #9998',
      '29997 deliver request 4>0 api1 #9999',
    ]);
  });
});

class Endpoint implements RouterEndpoint {
  readonly requests: InboundRequest[] = [];
  readonly responses: InboundResponse[] = [];
  constructor(
    readonly nodeId: number,
    readonly incarnation: number,
  ) {}
  receiveRequest(request: InboundRequest): void {
    this.requests.push(request);
  }
  receiveResponse(response: InboundResponse): void {
    this.responses.push(response);
  }
}

function runAll(scheduler: EventScheduler): void {
  for (let event = scheduler.takeNext(); event !== undefined; event = scheduler.takeNext()) void event.run();
}

/** Runs the events due within the next `durationMs` (request timeouts are 100 ms here). */
function runFor(scheduler: EventScheduler, durationMs: number): void {
  const untilMs = scheduler.nowMs() + durationMs;
  for (
    let atMs = scheduler.peekTimeMs();
    atMs !== undefined && atMs <= untilMs;
    atMs = scheduler.peekTimeMs()
  ) {
    void scheduler.takeNext()?.run();
  }
}

function newRouter(): { scheduler: EventScheduler; router: MessageRouter } {
  const scheduler = new EventScheduler();
  return { scheduler, router: new MessageRouter(scheduler, new SimulationRandom(1), new Trace(), 100) };
}

describe('MessageRouter', () => {
  it('delivers a request and routes the answer back to the requester', () => {
    const { scheduler, router } = newRouter();
    const zero = new Endpoint(0, 1);
    const one = new Endpoint(1, 1);
    router.attach(zero);
    router.attach(one);
    const channel = router.channelFor(0, 1);
    channel.send({
      correlationId: channel.newCorrelationId(),
      apiKey: 52,
      apiVersion: 2,
      data: { a: 1 },
      createdTimeMs: 0,
      destinationId: 1,
    });
    runFor(scheduler, 10);
    expect(one.requests).toHaveLength(1);
    router.channelFor(1, 1).sendResponse(one.requests[0] as InboundRequest, { errorCode: 0 });
    runAll(scheduler);
    expect(zero.responses).toEqual([
      expect.objectContaining({ correlationId: 1, apiKey: 52, sourceId: 1, data: { errorCode: 0 } }),
    ]);
  });

  it('times out requests the network drops, and answers only once', () => {
    const { scheduler, router } = newRouter();
    const zero = new Endpoint(0, 1);
    const one = new Endpoint(1, 1);
    router.attach(zero);
    router.attach(one);
    router.partitions.blockOneWay(1, 0);
    router
      .channelFor(0, 1)
      .send({ correlationId: 5, apiKey: 1, apiVersion: 17, data: {}, createdTimeMs: 0, destinationId: 1 });
    runAll(scheduler);
    router.channelFor(1, 1).sendResponse(one.requests[0] as InboundRequest, { errorCode: 0 });
    runAll(scheduler);
    expect(zero.responses.map((response) => response.data)).toEqual([{ errorCode: REQUEST_TIMED_OUT }]);
  });

  it('refuses requests to a stopped node and drops answers to a restarted one', () => {
    const { scheduler, router } = newRouter();
    const zero = new Endpoint(0, 1);
    router.attach(zero);
    router
      .channelFor(0, 1)
      .send({ correlationId: 1, apiKey: 1, apiVersion: 17, data: {}, createdTimeMs: 0, destinationId: 2 });
    runAll(scheduler);
    expect(zero.responses.map((response) => response.data)).toEqual([{ errorCode: BROKER_NOT_AVAILABLE }]);
    const two = new Endpoint(2, 1);
    router.attach(two);
    router
      .channelFor(0, 1)
      .send({ correlationId: 2, apiKey: 1, apiVersion: 17, data: {}, createdTimeMs: 0, destinationId: 2 });
    runFor(scheduler, 10);
    const restarted = new Endpoint(0, 2);
    router.detach(0);
    router.attach(restarted);
    router.channelFor(2, 1).sendResponse(two.requests[0] as InboundRequest, { errorCode: 0 });
    runAll(scheduler);
    expect(restarted.responses).toHaveLength(0);
    expect(zero.responses).toHaveLength(1);
  });

  it('duplicates and delays messages under bad link conditions', () => {
    const { scheduler, router } = newRouter();
    const one = new Endpoint(1, 1);
    router.attach(new Endpoint(0, 1));
    router.attach(one);
    router.conditions = { ...router.conditions, duplicateProbability: 1, minDelayMs: 5, maxDelayMs: 50 };
    router
      .channelFor(0, 1)
      .send({ correlationId: 1, apiKey: 1, apiVersion: 17, data: {}, createdTimeMs: 0, destinationId: 1 });
    runAll(scheduler);
    expect(one.requests).toHaveLength(2);
    expect(router.statistics.duplicated).toBe(1);
  });
});

describe('sim CLI arguments', () => {
  it('replays one seed from KRAFT_SEED', () => {
    expect(parseCliArguments([], { KRAFT_SEED: '42' })).toMatchObject({
      seeds: [42],
      replay: true,
      workers: 1,
    });
  });

  it('reads ranges, workers and shards', () => {
    const options = parseCliArguments(
      ['--seeds', '5', '--from=10', '--workers', '3', '--shards', '2', '--trace'],
      {},
    );
    expect(options).toMatchObject({
      seeds: [10, 11, 12, 13, 14],
      workers: 3,
      shards: 2,
      replay: false,
      printTrace: true,
    });
  });

  it('runs the nodes at the kraft.version asked for, and at the default without the option', () => {
    expect(parseCliArguments(['--kraft-version', '1'], {}).seedOptions.kraftVersion).toBe(1);
    expect(parseCliArguments(['--kraft-version=0'], {}).seedOptions.kraftVersion).toBe(0);
    expect(parseCliArguments([], {}).seedOptions).not.toHaveProperty('kraftVersion');
    expect(() => parseCliArguments(['--kraft-version', '2'], {})).toThrow(/must be 0 or 1/);
  });

  it('rejects unknown options and bad numbers', () => {
    expect(() => parseCliArguments(['--sedes', '5'], {})).toThrow(/unknown option/);
    expect(() => parseCliArguments(['--seeds', '-5'], {})).toThrow(/non-negative/);
    expect(() => parseCliArguments([], { KRAFT_SEED: 'x' })).toThrow(/integer/);
  });
});
