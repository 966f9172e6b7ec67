/**
 * The QuorumStateStore port: durable storage of the election state (Kafka's `quorum-state`
 * file). `write` must be durable when it returns (temp file, fsync, rename, directory fsync in
 * `FileQuorumStateStore`, which lives in `src/io/`): the core persists every durable transition
 * before the new state takes effect, so a crash can never forget a vote or an epoch.
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

export interface QuorumStateStore {
  /** The stored election, or `undefined` when nothing was ever written (a fresh node). */
  readElectionState(): QuorumStateData | undefined;
  /** Durable when it returns. */
  writeElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): void;
  /** Removes the stored state (tests and `kafka-storage format` only). */
  clear(): void;
  /** Where the state lives, for messages. */
  path(): string;
}
