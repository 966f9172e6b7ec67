import { invariant, type Logger } from '@kraft/protocol';
import { ListenerContext } from '../internals/listener-context.js';
import { RecordsBatchReader } from '../internals/records-batch-reader.js';
import { RecordsSnapshotReader } from '../internals/records-snapshot-reader.js';
import type { RaftLog } from '../ports/raft-log.js';
import type { QuorumState } from '../quorum-state.js';
import type { Listener } from '../raft-client.js';

/**
 * The registered listeners and what each has been sent: committed batches (or the latest snapshot
 * when it is behind the log start), leader changes, and the shutdown notice.
 */
export class ListenerDispatch {
  private readonly listeners = new Map<Listener, ListenerContext>();
  private readonly pendingRegistrations: { listener: Listener; register: boolean }[] = [];

  constructor(
    private readonly log: RaftLog,
    private readonly quorum: QuorumState,
    private readonly logger: Logger,
    /** The listener readers' refill buffer (KafkaRaftClientOptions.listenerReadBufferBytes). */
    private readonly readBufferBytes: number,
  ) {}

  /** Takes effect at the next `pollListeners`. */
  register(listener: Listener): void {
    this.pendingRegistrations.push({ listener, register: true });
  }

  /** Takes effect at the next `pollListeners`. */
  unregister(listener: Listener): void {
    this.pendingRegistrations.push({ listener, register: false });
  }

  pollListeners(): void {
    for (const { listener, register } of this.pendingRegistrations.splice(0)) {
      if (register && !this.listeners.has(listener))
        this.listeners.set(listener, new ListenerContext(listener));
      if (!register) this.listeners.delete(listener);
    }
    const highWatermark = this.quorum.highWatermark();
    for (const context of this.listeners.values()) {
      if (highWatermark !== undefined) this.maybeFireHandleCommit(context, highWatermark);
      this.maybeFireLeaderChange(context);
    }
  }

  private maybeFireHandleCommit(context: ListenerContext, highWatermark: number): void {
    if (context.lastSent !== undefined) return;
    const latest = this.log.latestSnapshotId();
    const behindLogStart = context.nextOffset === -1 || context.nextOffset < this.log.startOffset();
    if (behindLogStart && latest !== undefined && context.nextOffset < latest.offset) {
      // The slice rule for snapshots: one ending above this node's high watermark waits until the
      // high watermark reaches it (a snapshot written before a crash can sit above a follower's
      // restarted high watermark), as committed reads stop at the high watermark.
      if (latest.offset > highWatermark) return;
      const raw = this.log.readSnapshot(latest);
      invariant(raw !== undefined, () => `latest snapshot ${latest.offset}-${latest.epoch} cannot be read`);
      context.nextOffset = latest.offset;
      this.logger.info({ offset: latest.offset, epoch: latest.epoch }, 'listener loads snapshot');
      context.listener.handleLoadSnapshot(new RecordsSnapshotReader(raw, this.readBufferBytes));
    } else if (context.nextOffset === -1) {
      invariant(
        this.log.startOffset() === 0,
        () => `log starts at ${this.log.startOffset()} without a snapshot`,
      );
      context.nextOffset = 0;
    }
    invariant(
      context.nextOffset >= this.log.startOffset(),
      () => `listener at ${context.nextOffset} is behind the log start ${this.log.startOffset()}`,
    );
    if (context.nextOffset >= highWatermark) return;
    const info = this.log.read(context.nextOffset, 'committed');
    if (info.records.sizeInBytes() === 0) return;
    const reader = new RecordsBatchReader({
      baseOffset: context.nextOffset,
      records: info.records,
      highWatermark,
      readBufferBytes: this.readBufferBytes,
      onClose: (closed) => context.onReaderClosed(closed),
    });
    context.lastSent = reader;
    context.listener.handleCommit(reader);
  }

  /** KAFKA-15345: a new leader tells its listener only once it has read up to the epoch start. */
  private maybeFireLeaderChange(context: ListenerContext): void {
    if (this.quorum.isResigned()) return;
    const current = this.quorum.leaderAndEpoch();
    if (!context.shouldFireLeaderChange(current)) return;
    if (this.quorum.isLeader()) {
      const leader = this.quorum.leaderStateOrThrow();
      if (context.nextOffset <= leader.epochStartOffset) return;
    }
    context.fireLeaderChange(current);
  }

  /** Graceful shutdown completed: every listener hears `beginShutdown`. */
  beginShutdown(): void {
    for (const context of this.listeners.values()) context.listener.beginShutdown?.();
  }
}
