// ESLint: typescript-eslint's type-checked recommended rules over
// apps/*/src and packages/*/src, plus one rule of our own: every `switch` over
// a union names every member (STYLE.md habit 2), so a new state, event or
// error code breaks `npm test` wherever it is not handled, even behind a
// `default:` that would otherwise swallow it. `npm test` runs it
// (e2e/test/lint-type-checked.test.ts); alone: `npm run lint` (after a build:
// type information comes from each package's tsconfig.json and the
// dist/*.d.ts of the packages it imports).
import tseslint from 'typescript-eslint';

/** The exhaustive-switch rule and its options, shared with the test that proves it fires. */
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

/**
 * The engine's layering (STYLE.md habit 14): its statements (sql/) and pure
 * planning (planning/) never import a system, and resources.ts imports types
 * only, so the systems sit above what they use and a peer comes in a
 * constructor, not an import (e2e/test/engine-imports-form-no-circle.test.ts
 * also fails on any import circle inside the engine).
 */
export const engineLayerRules = [
  {
    files: ['packages/engine/src/sql/**/*.ts', 'packages/engine/src/planning/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/systems/*', '**/systems'], message: 'statements and planning sit below the systems: move the shared type to types.ts or rows.ts' }] },
      ],
    },
  },
  {
    files: ['packages/engine/src/resources.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['*', '**/*'], allowTypeImports: true, message: 'resources.ts holds types only: engine.ts builds the systems' }] },
      ],
    },
  },
];

/** What is linted: the source of every app and package (tests are type-checked, not linted). */
export const SOURCES = ['apps/*/src/**/*.ts', 'apps/*/src/**/*.tsx', 'packages/*/src/**/*.ts'];

/** The whole rule set for files matching `files`, with type information from the tsconfig nearest each file. */
export function typeCheckedConfig(files, tsconfigRootDir) {
  return [
    ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files })),
    {
      files,
      languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir } },
      linterOptions: { reportUnusedDisableDirectives: 'off' },
      rules: {
        ...exhaustiveSwitchRules,
        // `let x; const f = () => x; x = start(f)`: a late single assignment read by a closure stays `let`.
        'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      },
    },
  ];
}

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/db/src/generated/**', '**/*.test.ts'] },
  ...typeCheckedConfig(SOURCES, import.meta.dirname),
  ...engineLayerRules,
];
