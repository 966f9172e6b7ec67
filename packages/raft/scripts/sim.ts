// `pnpm sim` entry point; see test/simulation/simulation-cli.ts for the options.
import { main } from '../test/simulation/simulation-cli.js';

process.exitCode = await main(process.argv.slice(2), process.env);
