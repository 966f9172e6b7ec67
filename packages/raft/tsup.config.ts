import { defineLibrary } from '@kraft/tsup-config';

export default defineLibrary({ entry: ['src/index.ts', 'src/internal/index.ts', 'src/testing/index.ts'] });
