import type { Socket } from 'node:net';

/**
 * Writes frames to a socket, gathering every frame written in the same turn of the event loop
 * into one `writev` (cork now, uncork on the next tick). Pipelined requests and a driver answering
 * many requests at once then cost one syscall, not one per frame.
 */
export class CoalescingWriter {
  private readonly socket: Socket;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  constructor(socket: Socket) {
    this.socket = socket;
  }

  write(frame: Buffer): void {
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    this.socket.write(frame);
  }

  /**
   * Hands what this turn gathered to the socket now. Called before the socket is destroyed:
   * writes still corked then would each fail with a freshly built ERR_STREAM_DESTROYED error.
   */
  flush(): void {
    if (!this.corked) return;
    this.corked = false;
    this.socket.uncork();
  }
}
