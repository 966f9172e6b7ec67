// The Random port and its seeded generator are declared once, in @kraft/protocol, so the TCP
// transport (jittered backoff) and its fuzzer can take them without depending on raft (ADR 0023).
export { type Random, SeededRandom } from '@kraft/protocol';
