/**
 * The QuorumStateStore port: durable storage of the election state (Kafka's `quorum-state`
 * file). The core only reads it (once, at `initialize`); the driver writes what the core's outbox
 * asks for, and `writeElectionState` resolves once the write is durable (temp file, fdatasync,
 * rename, directory fsync in `FileQuorumStateStore`, which lives in `src/io/`), its syncs off the
 * event loop as the log's flushes are. The core holds back every message that depends on an
 * election until its write is reported durable, so a crash can never forget a vote or an epoch
 * that another node acted on (RaftOutbox).
 */
import type { Uuid } from '@kraft/protocol';

/**
 * The stored form of an election (Kafka's `QuorumStateData`, data versions 0 and 1). `-1` means
 * "none" for ids and epochs, as in the file; `votedDirectoryId` is `Uuid.ZERO` when unknown.
 */
export interface QuorumStateData {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly votedId: number;
  /** Data version 1 only. */
  readonly votedDirectoryId: Uuid;
  /** Data version 0 only: the voter ids (the stored `currentVoters`), or null. */
  readonly currentVoters: readonly number[] | null;
}

/** Which data version a store writes: 0 under kraft.version 0, 1 under kraft.version 1. */
export type QuorumStateDataVersion = 0 | 1;

/** Port for the durable election state (epoch, leader, vote) that must survive a restart. */
export interface QuorumStateStore {
  /** The stored election, or `undefined` when nothing was ever written (a fresh node). */
  readElectionState(): QuorumStateData | undefined;
  /** Resolves once the state is durable; the driver runs one write at a time. */
  writeElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): Promise<void>;
  /** Removes the stored state (tests and `kafka-storage format` only). */
  clear(): void;
  /** Where the state lives, for messages. */
  path(): string;
}
