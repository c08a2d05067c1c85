// A setup file (vitest.config.ts setupFiles): it runs before each test file, in the file's
// worker, so this hook runs after that file, whether its tests passed or failed.
import { afterAll } from 'vitest';
import { removeTempDirs } from './repo.js';

afterAll(removeTempDirs);
