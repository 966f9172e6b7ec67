import { type CatchUpScenarioResult, catchUpSummary } from './catch-up-scenario.js';
import { type FailoverScenarioResult, failoverSummary } from './failover-scenario.js';
import { type KafkaScenarioResult, kafkaSummary } from './kafka-scenario.js';
import type { MetadataScenarioResult } from './metadata-scenario.js';
import { metadataSummary } from './metadata-summary.js';
import { type PeersScenarioResult, peersSummary } from './peers/peers-scenario.js';
import { type RaftNodeScenarioResult, raftNodeSummary } from './raft-node-scenario.js';
import { type RestartScenarioResult, restartSummary } from './restart-scenario.js';
import type { MarkdownSummary } from './results.js';
import { type SweepScenarioResult, sweepSummary } from './sweep-scenario.js';

export type ScenarioResult =
  | MetadataScenarioResult
  | KafkaScenarioResult
  | SweepScenarioResult
  | FailoverScenarioResult
  | PeersScenarioResult
  | RestartScenarioResult
  | CatchUpScenarioResult
  | RaftNodeScenarioResult;

/** Every scenario's Markdown table, from its result alone (so a saved result renders again). */
export function scenarioSummary(result: ScenarioResult): MarkdownSummary {
  switch (result.scenario) {
    case 'metadata':
      return metadataSummary(result);
    case 'kafka':
    case 'open-loop':
      return kafkaSummary(result);
    case 'sweep':
      return sweepSummary(result);
    case 'failover':
      return failoverSummary(result);
    case 'peers':
      return peersSummary(result);
    case 'restart':
      return restartSummary(result);
    case 'catch-up':
      return catchUpSummary(result);
    case 'raft-node':
      return raftNodeSummary(result);
  }
}
