import { ProtocolError } from '@kraft/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameDecoder } from './frame-codec.js';

/** `body` behind its 4-byte big-endian size prefix. */
function sizePrefixed(body: Buffer | Uint8Array): Buffer {
  const prefix = Buffer.allocUnsafe(4);
  prefix.writeInt32BE(body.length, 0);
  return Buffer.concat([prefix, body]);
}

function drain(decoder: FrameDecoder): Buffer[] {
  const frames: Buffer[] = [];
  for (;;) {
    const result = decoder.next();
    if (result.kind === 'incomplete') return frames;
    frames.push(result.frame);
  }
}

describe('FrameDecoder', () => {
  it('answers incomplete until a frame is whole, at every split point', () => {
    const body = Buffer.from('0034000100000007', 'hex');
    const frame = sizePrefixed(body);
    for (let split = 0; split <= frame.length; split += 1) {
      const decoder = new FrameDecoder();
      decoder.push(frame.subarray(0, split));
      const first = drain(decoder);
      decoder.push(frame.subarray(split));
      const second = drain(decoder);
      expect([...first, ...second]).toEqual([frame]);
      expect(decoder.isMidFrame()).toBe(false);
    }
  });

  it('returns a frame inside one chunk as a view of that chunk, size prefix included', () => {
    const chunk = sizePrefixed(Buffer.from('abcdef'));
    const decoder = new FrameDecoder();
    decoder.push(chunk);
    const result = decoder.next();
    expect(result.kind).toBe('frame');
    if (result.kind === 'frame') {
      expect(result.frame.buffer).toBe(chunk.buffer);
      expect(result.frame).toEqual(chunk);
    }
  });

  it('decodes empty frames', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.alloc(8));
    expect(drain(decoder)).toEqual([Buffer.alloc(4), Buffer.alloc(4)]);
  });

  it('rejects a negative size prefix', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.from('ffffffff', 'hex'));
    expect(() => decoder.next()).toThrow(ProtocolError);
  });

  it('rejects a size above the maximum as soon as the prefix is known', () => {
    const decoder = new FrameDecoder(1024);
    decoder.push(Buffer.from('00000401', 'hex'));
    expect(() => decoder.next()).toThrow(/frame size 1025 is outside \[0, 1024\]/);
  });

  it('checks a size prefix split across chunks before the frame arrives', () => {
    const decoder = new FrameDecoder(1024);
    decoder.push(Buffer.from('00', 'hex'));
    decoder.push(Buffer.from('0004', 'hex'));
    expect(decoder.next().kind).toBe('incomplete');
    decoder.push(Buffer.from('01', 'hex'));
    expect(() => decoder.next()).toThrow(ProtocolError);
  });

  it('accepts a frame of exactly the maximum size', () => {
    const decoder = new FrameDecoder(8);
    decoder.push(sizePrefixed(Buffer.alloc(8, 7)));
    expect(drain(decoder)).toEqual([sizePrefixed(Buffer.alloc(8, 7))]);
  });

  it('decodes any frames split into any chunks identically', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 12 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 40 }),
        (bodies, cuts) => {
          const stream = Buffer.concat(bodies.map((body) => sizePrefixed(body)));
          const decoder = new FrameDecoder(64);
          const frames: Buffer[] = [];
          let position = 0;
          for (const cut of cuts) {
            const end = Math.min(stream.length, position + cut);
            decoder.push(stream.subarray(position, end));
            frames.push(...drain(decoder));
            position = end;
          }
          decoder.push(stream.subarray(position));
          frames.push(...drain(decoder));
          expect(frames.map((frame) => frame.toString('hex'))).toEqual(
            bodies.map((body) => sizePrefixed(body).toString('hex')),
          );
          expect(decoder.bufferedBytes()).toBe(0);
        },
      ),
    );
  });
});
