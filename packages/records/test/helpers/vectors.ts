/** Hex vectors from kraft-formats.md §9 (computed by Kafka's own serializers and by hand). */
export const VECTOR_A_HEX =
  '00000000000000050000005a0000000302fb65b0da0000000000010000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000023a000000012e010c00116d657461646174612e76657273696f6e001500001400000201080114000000';

export const VECTOR_C_HEADER_HEX =
  '0000000000000000000000470000000202c7ac78040020000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000012a00000008000000031600000000018bcfe568000000';

export const VECTOR_C_FOOTER_HEX =
  '00000000000000010000003f00000002028f6608e60020000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000011a00000008000000040600000000';

/** FeatureLevelRecord("metadata.version", 21) v0 in its metadata frame (§4). */
export const FEATURE_LEVEL_VALUE_HEX = '010c00116d657461646174612e76657273696f6e001500';
/** NoOpRecord v0 in its metadata frame. */
export const NO_OP_VALUE_HEX = '01140000';

export const TIMESTAMP_MS = 1_700_000_000_000;

export const hex = (text: string): Buffer => Buffer.from(text, 'hex');
