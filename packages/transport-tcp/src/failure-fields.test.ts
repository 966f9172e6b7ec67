import { connect } from 'node:net';
import { ProtocolError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { failureFields, isPeerGone } from './failure-fields.js';
import { FrameDecoder } from './frame-codec.js';

function refusedConnectError(): Promise<Error> {
  return new Promise((resolve) => {
    // Port 1 on loopback: nothing listens there on a test machine.
    connect({ host: '127.0.0.1', port: 1 }).on('error', resolve);
  });
}

function frameTooLargeError(): unknown {
  const decoder = new FrameDecoder(1024);
  decoder.push(Buffer.from([0, 0, 4, 1]));
  try {
    decoder.next();
  } catch (err) {
    return err;
  }
  throw new Error('expected the decoder to refuse the frame');
}

describe('failureFields', () => {
  it('gives a refused connection as its message and code, without the stack', async () => {
    const err = await refusedConnectError();
    expect(failureFields(err)).toEqual({ cause: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' });
    expect(isPeerGone(err)).toBe(true);
  });

  it('gives a frame above the size limit, a typed error, as its message and code', () => {
    const err = frameTooLargeError();
    expect(ProtocolError.isProtocolError(err)).toBe(true);
    expect(failureFields(err)).toEqual({ cause: (err as Error).message, code: 'PROTOCOL_ERROR' });
    expect(isPeerGone(err)).toBe(false);
  });

  it('keeps anything else, which may be a bug, as err with its stack', () => {
    const bug = new TypeError('cannot read properties of undefined');
    expect(failureFields(bug)).toEqual({ err: bug });
    const internal = Object.assign(new TypeError('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' });
    expect(failureFields(internal)).toEqual({ err: internal });
    expect(failureFields(undefined)).toEqual({});
  });
});
