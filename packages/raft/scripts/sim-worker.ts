// A `pnpm sim` worker process: runs the seed chunks its parent sends.
import { serveSeeds } from '../test/simulation/simulation-cli.js';

serveSeeds();
