import { describe, expect, it } from 'vitest';
import { createSchedule, describeFault, FAULT_KINDS, type ScheduleOptions } from './chaos-schedule.js';

const options: ScheduleOptions = { seed: 42, nodeIds: [1, 2, 3], faultWindowMs: 60_000, kinds: FAULT_KINDS };

describe('createSchedule', () => {
  it('replays: the same seed gives the same faults, another seed other faults', () => {
    expect(createSchedule(options)).toEqual(createSchedule({ ...options }));
    expect(createSchedule({ ...options, seed: 43 })).not.toEqual(createSchedule(options));
  });

  it('keeps faults one at a time, inside the window, on the cluster nodes, with distinct link ends', () => {
    for (let seed = 0; seed < 200; seed++) {
      const faults = createSchedule({ ...options, seed, nodeIds: [1, 2, 3, 4, 5] });
      expect(faults.length).toBeGreaterThan(0);
      let previousEndMs = 0;
      for (const fault of faults) {
        expect(fault.startMs).toBeGreaterThan(previousEndMs);
        previousEndMs = fault.startMs + fault.durationMs;
        expect(previousEndMs).toBeLessThanOrEqual(options.faultWindowMs);
        expect(fault.nodeIds.every((nodeId) => [1, 2, 3, 4, 5].includes(nodeId))).toBe(true);
        expect(new Set(fault.nodeIds).size).toBe(fault.nodeIds.length);
        const linkFault = ['partition-link', 'blackhole', 'slow-link'].includes(fault.kind);
        expect(fault.nodeIds).toHaveLength(linkFault ? 2 : 1);
      }
    }
  });

  it('draws only the kinds it is given, and every kind over enough seeds', () => {
    const drawn = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      for (const fault of createSchedule({ ...options, seed, kinds: ['kill', 'pause'] }))
        drawn.add(fault.kind);
    }
    expect([...drawn].sort()).toEqual(['kill', 'pause']);
    const all = new Set<string>();
    for (let seed = 0; seed < 50; seed++)
      for (const fault of createSchedule({ ...options, seed })) all.add(fault.kind);
    expect([...all].sort()).toEqual([...FAULT_KINDS].sort());
  });

  it('gives nothing without kinds or peers, and describes a fault for the report', () => {
    expect(createSchedule({ ...options, kinds: [] })).toEqual([]);
    expect(createSchedule({ ...options, nodeIds: [1] })).toEqual([]);
    expect(
      describeFault({ index: 3, kind: 'blackhole', startMs: 12_400, durationMs: 3_100, nodeIds: [2, 1] }),
    ).toBe('#3 blackhole 2->1 at 12.4s for 3.1s');
    expect(
      describeFault({
        index: 0,
        kind: 'slow-link',
        startMs: 0,
        durationMs: 2_000,
        nodeIds: [1, 3],
        rateKbit: 64,
        latencyMs: 50,
      }),
    ).toBe('#0 slow-link 1<->3 64kbit 50ms at 0.0s for 2.0s');
  });
});
