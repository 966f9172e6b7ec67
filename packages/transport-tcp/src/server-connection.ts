import type { Socket } from 'node:net';
import type { Logger } from '@kraft/protocol';
import { invariant, KRaftError } from '@kraft/protocol';
import { CoalescingWriter } from './coalescing-writer.js';
import { failureFields, isPeerGone } from './failure-fields.js';
import { FrameDecoder } from './frame-codec.js';
import type { LogSampler } from './log-sampler.js';
import type { ChunkedRecordsSource, OutboundPayload } from './outbound-payload.js';
import type { TransportConfig } from './transport-config.js';

/** Records are copied out of their file in chunks of this size: large enough for few syscalls, small enough to bound memory per connection. */
const RECORDS_CHUNK_BYTES = 256 * 1024;

/**
 * Frames handed on per event-loop turn before yielding: one connection flooding small frames
 * must not delay the others (and the raft driver) by more than a few hundred microseconds.
 */
const MAX_FRAMES_PER_TURN = 16;

/**
 * Records bytes a stream may queue in the socket before it waits for a drain: enough that one
 * drain per MiB, not per 16 KiB socket high-water mark, paces a large Fetch response.
 */
const RECORDS_STREAM_BUFFER_BYTES = 1024 * 1024;

/** A response position reserved, in request order, when a request is read. */
export interface ResponseSlot {
  payload: OutboundPayload | undefined;
}

export interface ServerConnectionOptions {
  readonly socket: Socket;
  readonly connectionId: number;
  readonly listenerName: string;
  readonly config: TransportConfig;
  readonly logger: Logger;
  /** Samples the warnings of connections closed with an error (shared by a server's connections). */
  readonly closeLogSampler: LogSampler;
  readonly clock: () => number;
  /** Called for each whole size-prefixed frame, in arrival order. May close the connection. */
  readonly onFrame: (connection: ServerConnection, frame: Buffer) => void;
  readonly onClose: (connection: ServerConnection) => void;
}

/**
 * One accepted connection. It decodes frames, keeps responses in request order whatever order
 * the handlers answer in, and applies the bounds: at most `maxInFlightRequestsPerConnection`
 * unanswered requests and at most `outboundHighWaterMarkBytes` unsent bytes before it stops
 * reading; a started frame must finish within `frameCompletionTimeoutMs`; an idle connection
 * closes after `connectionsMaxIdleMs`.
 */
export class ServerConnection {
  readonly connectionId: number;
  readonly listenerName: string;
  private readonly socket: Socket;
  private readonly options: ServerConnectionOptions;
  private readonly decoder: FrameDecoder;
  private readonly writer: CoalescingWriter;
  private readonly slots: ResponseSlot[] = [];
  private slotHead = 0;
  private streamingRecords = false;
  private readingPaused = false;
  /** Set while processing is deferred to the next turn; reading is paused meanwhile. */
  private yielding = false;
  private closed = false;
  private lastActivityMs: number;
  /** When the frame now being received started arriving, or -1 between frames. */
  private frameStartedMs = -1;

  constructor(options: ServerConnectionOptions) {
    this.options = options;
    this.socket = options.socket;
    this.connectionId = options.connectionId;
    this.listenerName = options.listenerName;
    this.decoder = new FrameDecoder(options.config.socketRequestMaxBytes);
    this.writer = new CoalescingWriter(options.socket);
    this.lastActivityMs = options.clock();
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('drain', () => this.updateReading());
    this.socket.on('error', (err) => this.close('socket error', err));
    this.socket.on('close', () => this.close('peer closed'));
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Requests read and not yet fully written back. */
  inFlightCount(): number {
    return this.slots.length - this.slotHead;
  }

  /** Reserves the next response position; the server calls it for every request it will answer. */
  reserveResponseSlot(): ResponseSlot {
    const slot: ResponseSlot = { payload: undefined };
    this.slots.push(slot);
    return slot;
  }

  /** Fills a reserved slot; responses leave in slot order. */
  complete(slot: ResponseSlot, payload: OutboundPayload): void {
    invariant(
      slot.payload === undefined,
      () => `connection ${this.connectionId}: a response slot was completed twice`,
    );
    slot.payload = payload;
    if (!this.closed) this.flushResponses();
  }

  /**
   * Closes the connection once. A close with an error is a warning, sampled: a hostile peer may
   * cause thousands a second. Fields are built only for a line that is logged.
   */
  close(reason: string, err?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.logClose(reason, err);
    this.slots.length = 0;
    this.slotHead = 0;
    this.writer.flush();
    this.socket.destroy();
    this.options.onClose(this);
  }

  /** `host:port` of the peer (a syscall: only for log lines). */
  remoteAddress(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? 0}`;
  }

  /**
   * A clean close, or the peer going away (reset, broken pipe), is a debug line: the peer's own
   * connection from this node reports the outage. A close for the peer's misbehaviour (a frame
   * above the size limit, a malformed request) is a sampled warning, its cause on one line.
   */
  private logClose(reason: string, err: unknown): void {
    const { logger, closeLogSampler, clock } = this.options;
    const level = err === undefined || isPeerGone(err) ? 'debug' : 'warn';
    if (!logger.isLevelEnabled(level)) return;
    const fields = {
      connectionId: this.connectionId,
      remoteAddress: this.remoteAddress(),
      listenerName: this.listenerName,
      reason,
      ...failureFields(err),
    };
    if (level === 'debug') {
      logger.debug(fields, 'closing connection');
      return;
    }
    const suppressedCloseLogs = closeLogSampler.admit(clock());
    if (suppressedCloseLogs >= 0) logger.warn({ ...fields, suppressedCloseLogs }, 'closing connection');
  }

  /** Closes the connection if it has been idle too long or a frame is taking too long to arrive. */
  checkTimeouts(nowMs: number): void {
    if (this.closed) return;
    const { connectionsMaxIdleMs, frameCompletionTimeoutMs } = this.options.config;
    if (
      this.frameStartedMs >= 0 &&
      !this.readingPaused &&
      nowMs - this.frameStartedMs > frameCompletionTimeoutMs
    ) {
      this.close(
        `frame not completed within ${frameCompletionTimeoutMs} ms`,
        new KRaftError('SLOW_SENDER', 'slow sender'),
      );
    } else if (this.isIdle() && nowMs - this.lastActivityMs > connectionsMaxIdleMs) {
      this.close(`idle for more than ${connectionsMaxIdleMs} ms`);
    }
  }

  private isIdle(): boolean {
    return this.inFlightCount() === 0 && !this.decoder.isMidFrame() && this.socket.writableLength === 0;
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    const nowMs = this.options.clock();
    this.lastActivityMs = nowMs;
    if (this.frameStartedMs < 0) this.frameStartedMs = nowMs;
    this.decoder.push(chunk);
    this.processFrames();
  }

  /** Hands decoded frames to the server while the in-flight bound allows, then adjusts reading. */
  private processFrames(): void {
    let handed = 0;
    while (!this.closed && this.inFlightCount() < this.options.config.maxInFlightRequestsPerConnection) {
      if (handed === MAX_FRAMES_PER_TURN) {
        this.yieldTurn();
        return;
      }
      handed += 1;
      let frame: Buffer;
      try {
        const result = this.decoder.next();
        if (result.kind === 'incomplete') break;
        frame = result.frame;
      } catch (err) {
        this.close('invalid frame size', err);
        return;
      }
      this.frameStartedMs = this.decoder.isMidFrame() ? this.options.clock() : -1;
      this.options.onFrame(this, frame);
    }
    this.updateReading();
  }

  /** Pauses reading and continues with the buffered frames on the next turn of the event loop. */
  private yieldTurn(): void {
    if (this.yielding) return;
    this.yielding = true;
    this.updateReading();
    setImmediate(() => {
      this.yielding = false;
      this.processFrames();
    });
  }

  private updateReading(): void {
    if (this.closed) return;
    const { maxInFlightRequestsPerConnection, outboundHighWaterMarkBytes } = this.options.config;
    const mayRead =
      !this.yielding &&
      this.inFlightCount() < maxInFlightRequestsPerConnection &&
      this.socket.writableLength < outboundHighWaterMarkBytes;
    if (!mayRead && !this.readingPaused) {
      this.readingPaused = true;
      this.socket.pause();
    } else if (mayRead && this.readingPaused) {
      this.readingPaused = false;
      if (this.frameStartedMs >= 0) this.frameStartedMs = this.options.clock();
      this.socket.resume();
      // Frames that arrived before the pause are still in the decoder.
      if (this.decoder.bufferedBytes() > 0) this.processFrames();
    }
  }

  private flushResponses(): void {
    while (!this.streamingRecords && !this.closed) {
      const slot = this.slots[this.slotHead];
      if (slot === undefined || slot.payload === undefined) break;
      const payload = slot.payload;
      this.slots[this.slotHead] = EMPTY_SLOT;
      this.slotHead += 1;
      if (this.slotHead === this.slots.length) {
        this.slots.length = 0;
        this.slotHead = 0;
      }
      this.lastActivityMs = this.options.clock();
      if (payload.kind === 'frame') {
        this.writer.write(payload.frame);
      } else if (payload.kind === 'chunks') {
        for (const chunk of payload.chunks) this.writer.write(chunk);
      } else {
        this.streamingRecords = true;
        this.streamRecords(payload.head, payload.records, payload.tail).then(
          () => {
            this.streamingRecords = false;
            this.flushResponses();
          },
          (err: unknown) => this.close('failed to stream records', err),
        );
      }
    }
    this.updateReading();
  }

  /** Writes head, the records in bounded chunks (waiting for the socket to drain), then tail. */
  private async streamRecords(head: Buffer, records: ChunkedRecordsSource, tail: Buffer): Promise<void> {
    this.socket.write(head);
    const size = records.sizeInBytes();
    for (let position = 0; position < size && !this.closed; ) {
      const written = this.writeRecordsChunk(records, position, size - position);
      position += written;
      if (this.socket.writableLength >= RECORDS_STREAM_BUFFER_BYTES) await this.drained();
    }
    if (!this.closed) this.socket.write(tail);
  }

  /** One step of the stream: FileRecords.writeTo when the source has it, else a bounded readInto copy. */
  private writeRecordsChunk(records: ChunkedRecordsSource, position: number, remaining: number): number {
    if (records.writeTo !== undefined) {
      const written = records.writeTo(this.recordsDestination, position, remaining);
      invariant(written > 0, () => `records at ${position} wrote nothing of ${remaining} bytes`);
      return written;
    }
    const chunk = Buffer.allocUnsafe(Math.min(RECORDS_CHUNK_BYTES, remaining));
    const copied = records.readInto(chunk, position);
    invariant(
      copied === chunk.length,
      () => `records returned ${copied} of ${chunk.length} bytes at ${position}`,
    );
    this.socket.write(chunk);
    return copied;
  }

  /** Accepts records chunks until the stream buffer is full (the socket's own mark is 16 KiB). */
  private readonly recordsDestination = {
    write: (chunk: Buffer): boolean => {
      this.socket.write(chunk);
      return this.socket.writableLength < RECORDS_STREAM_BUFFER_BYTES;
    },
  };

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}

const EMPTY_SLOT: ResponseSlot = { payload: undefined };
