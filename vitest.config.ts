import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests spawn the built binary and real git; give them room on a 2-core box.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
