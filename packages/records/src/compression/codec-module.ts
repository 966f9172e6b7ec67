import { createRequire } from 'node:module';
import { CodecUnavailableError } from '../errors/codec-unavailable-error.js';

const requireFromHere = createRequire(import.meta.url);

/**
 * A codec's module, loaded the first time a batch needs it rather than when the package is
 * imported: most logs hold no compressed batch, and loading the four codecs (two native addons,
 * one WebAssembly module, one large JS decoder) costs about a third of the package's import time.
 * `require` keeps the load synchronous, as the codecs themselves are; every codec package ships a
 * CommonJS entry. A module that cannot be loaded (a native addon missing for this platform) is a
 * `CodecUnavailableError`, never a `CompressionError`: the batch is not corrupt, this process
 * cannot read it.
 */
export function codecModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      try {
        loaded = requireFromHere(specifier) as T;
      } catch (error) {
        throw new CodecUnavailableError(specifier, error);
      }
    }
    return loaded;
  };
}
