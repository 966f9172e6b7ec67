/**
 * `bin/test-kraft-server-start.sh` runs this file. Everything happens in `runTestServer`; this
 * module only binds it to the real process and exits with its code.
 */
import { processBindings } from './process-bindings.js';
import { runTestServer } from './run-test-server.js';

process.exit(await runTestServer(process.argv.slice(2), processBindings()));
