// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import jsxA11y from "eslint-plugin-jsx-a11y";
import nextPlugin from "@next/eslint-plugin-next";
import globals from "globals";

/** server/ talks to the cluster and the database; lib/ and components/ must never reach it. */
const noServerImports = {
  patterns: [
    {
      group: ["@/server/*", "**/server/*", "server-only"],
      message: "server/ is server-only: lib/ and components/ must not import it.",
    },
  ],
};

/**
 * server/kube modules the command line bundles too: plain Node, so they may import neither Next
 * nor React nor "server-only" (which throws outside a React server bundle).
 */
const PLAIN_NODE_SERVER = [
  "server/kube/config.ts",
  "server/kube/client.ts",
  "server/kube/errors.ts",
  "server/kube/list-collection.ts",
  "server/kube/admission-state.ts",
  "server/kube/admission-manifests.ts",
  "server/kube/backend-pods.ts",
];
const plainNodeImports = {
  patterns: [
    {
      group: ["server-only", "next", "next/*", "react", "react-dom", "@/app/*", "@/components/*"],
      message: "shared with the command line: plain Node only (see cli/build.ts).",
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      "cluster/bin/**",
      ".portcullis/**",
      "test-results/**",
      "playwright-report/**",
      "e2e/artifacts/**",
      "dist/**",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["**/*.tsx"],
    plugins: { "react-hooks": reactHooks, "jsx-a11y": jsxA11y, "@next/next": nextPlugin },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
    },
  },
  {
    files: ["lib/**", "components/**"],
    // Integration tests and oracles run in Node against the cluster and read it through server/.
    ignores: ["**/*.int.test.ts"],
    rules: { "no-restricted-imports": ["error", noServerImports] },
  },
  {
    files: PLAIN_NODE_SERVER,
    rules: { "no-restricted-imports": ["error", plainNodeImports] },
  },
);
