import { defineConfig } from "vitest/config";
import path from "node:path";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // server/ modules import 'server-only' to keep them out of client bundles; under test it is empty.
  "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: [
            "lib/**/*.test.ts",
            "server/**/*.test.ts",
            "cli/**/*.test.ts",
            "components/**/*.test.ts",
            "cluster/**/*.test.ts",
            "test/**/*.test.ts",
            "scripts/**/*.test.ts",
            "bench/**/*.test.ts",
          ],
          // Tests that need the control plane run in the integration and oracle projects.
          exclude: ["node_modules/**", ".next/**", "**/*.int.test.ts"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: ["node_modules/**", ".next/**", "**/*.oracle.int.test.ts"],
          environment: "node",
          globalSetup: ["test/global-stack.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "oracle",
          include: ["**/*.oracle.int.test.ts"],
          exclude: ["node_modules/**", ".next/**"],
          environment: "node",
          globalSetup: ["test/global-stack.ts"],
          testTimeout: 600_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
