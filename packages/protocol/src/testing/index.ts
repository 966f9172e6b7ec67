// Test helpers for packages that declare messages with the schema DSL (`@kraft/protocol/testing`).
// They need fast-check, an optional peer dependency: production code never imports this subpath.
export { checkSpecialisedCodecAgreement, type ExpectEqual } from './codec-agreement.js';
export { messageArbitrary, structArbitrary, versionsOf } from './message-arbitrary.js';
export { type ReferenceSchemaCheck, referenceSchemaCheck } from './reference-schema-check.js';
export {
  compareWithReferenceSchema,
  parseReferenceSchema,
  type ReferenceComparisonOptions,
} from './reference-schema-compare.js';
