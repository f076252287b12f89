// ESLint runs one rule: every `switch` over a union names every member (STYLE.md
// habit 2), so a new state, event or error code breaks `npm test` wherever it
// is not handled, even behind a `default:` that would otherwise swallow it.
// `npm test` runs it (e2e/test/lint-exhaustive-switches.test.ts); alone:
// `npm run lint` (after a build: type information comes from each package's
// tsconfig.json and the dist/*.d.ts of the packages it imports).
import tseslint from 'typescript-eslint';

/** The rule and its options, shared with the test that proves it fires. */
export const exhaustiveSwitchRules = {
  '@typescript-eslint/switch-exhaustiveness-check': [
    'error',
    {
      // A `default:` never stands in for a missing case of a union...
      considerDefaultExhaustiveForUnions: false,
      // ...but may follow the cases, as the `assertNever` that ends them.
      allowDefaultCaseForExhaustiveSwitch: true,
      // Switches over plain strings and numbers are not the rule's business.
      requireDefaultForNonUnion: false,
    },
  ],
};

export default [
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'packages/db/src/generated/**', '**/*.test.ts'],
  },
  {
    files: ['apps/*/src/**/*.ts', 'apps/*/src/**/*.tsx', 'packages/*/src/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: exhaustiveSwitchRules,
  },
];
