/**
 * Which quorum the server runs, from its config and its log dir's bootstrap checkpoint (ADR 0048):
 * a static quorum (kraft.version 0, voters from `controller.quorum.voters`) or a dynamic one
 * (kraft.version 1, voters from the checkpoint and the log, KIP-853).
 */
import type { BootstrapCheckpoint } from '../storage/bootstrap-checkpoint.js';
import type { ServerConfig } from './server-config.js';

export type QuorumMode =
  | {
      readonly kraftVersion: 0;
      /** Voters of `controller.quorum.voters` other than this node. */
      readonly otherVoterCount: number;
    }
  | {
      readonly kraftVersion: 1;
      /**
       * Voters other than this node that the checkpoint names; undefined when the dir has no
       * checkpoint (formatted with `--no-initial-controllers`): the node starts as an observer and
       * learns the voters from the log it fetches.
       */
      readonly otherVoterCount: number | undefined;
      /**
       * `controller.quorum.voters` is set beside a kraft.version 1 checkpoint: the checkpoint's
       * voters win (Kafka's formatter refuses the two together; Kafka's server runs them so).
       */
      readonly staticVotersIgnored: boolean;
    };

/**
 * Kafka's rules: a kraft.version 1 checkpoint makes the quorum dynamic; without one, the static
 * voters make it static (also beside `controller.quorum.bootstrap.servers`, and for a dir
 * formatted with `--no-initial-controllers`, KAFKA-19719), and a config with bootstrap servers
 * only is a dynamic quorum's observer. The config parser already refused a config with neither.
 */
export function resolveQuorumMode(
  config: ServerConfig,
  checkpoint: BootstrapCheckpoint | undefined,
): QuorumMode {
  const staticVoters = config.quorum.voters;
  if (checkpoint !== undefined && checkpoint.kraftVersion >= 1) {
    const voters = checkpoint.voters ?? [];
    return {
      kraftVersion: 1,
      otherVoterCount: voters.filter((voter) => voter.voterId !== config.nodeId).length,
      staticVotersIgnored: staticVoters.length > 0,
    };
  }
  if (staticVoters.length > 0) {
    return {
      kraftVersion: 0,
      otherVoterCount: staticVoters.filter((voter) => voter.nodeId !== config.nodeId).length,
    };
  }
  return { kraftVersion: 1, otherVoterCount: undefined, staticVotersIgnored: false };
}
