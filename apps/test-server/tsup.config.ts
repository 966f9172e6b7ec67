import { defineConfig } from 'tsup';

// The entries bin/ runs once built (bin/exec-entry.sh); @kraft/* and the other dependencies stay
// external, so each package runs from its own dist/ with its own dependencies beside it.
export default defineConfig({
  entry: {
    main: 'src/main.ts',
    'dump-log/main': 'src/dump-log/main.ts',
    'storage/main': 'src/storage/main.ts',
    'metadata-quorum/main': 'src/metadata-quorum/main.ts',
    quickstart: 'src/quickstart.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  dts: false,
});
