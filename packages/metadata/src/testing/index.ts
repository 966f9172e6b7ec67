// Test helpers (`@kraft/metadata/testing`); fast-check is an optional peer dependency.
export {
  type ApiMessageAndVersionArbitraryOptions,
  apiMessageAndVersionArbitrary,
} from './api-message-and-version-arbitrary.js';
