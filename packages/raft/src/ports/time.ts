// The Time port is declared once, in @kraft/protocol, so the TCP transport can take it without
// depending on raft (ADR 0023); the core keeps importing it from here.
export type { Time } from '@kraft/protocol';
