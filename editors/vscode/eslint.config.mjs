// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['out/**', 'node_modules/**', '*.vsix'] },
    eslint.configs.recommended,
    ...tseslint.configs.strictTypeChecked,
    ...tseslint.configs.stylisticTypeChecked,
    {
        languageOptions: {
            parserOptions: {
                projectService: true,
                tsconfigRootDir: import.meta.dirname,
            },
        },
        rules: {
            '@typescript-eslint/no-floating-promises': 'error',
            '@typescript-eslint/explicit-function-return-type': ['warn', { allowExpressions: true }],
            '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
            eqeqeq: 'error',
            curly: 'error',
        },
    },
    {
        // Plain JavaScript: this file and the smoke test with its `vscode` stand-in.
        files: ['**/*.mjs'],
        ...tseslint.configs.disableTypeChecked,
    },
    {
        files: ['test/**/*.mjs'],
        languageOptions: {
            globals: {
                process: 'readonly',
                console: 'readonly',
                setTimeout: 'readonly',
                clearTimeout: 'readonly',
            },
        },
        rules: {
            // A stand-in is mostly no-ops and plain data classes.
            '@typescript-eslint/explicit-function-return-type': 'off',
            '@typescript-eslint/no-empty-function': 'off',
            '@typescript-eslint/no-extraneous-class': 'off',
            '@typescript-eslint/no-dynamic-delete': 'off',
        },
    },
    {
        // The end-to-end test runs some of its functions inside the workbench page.
        files: ['test/e2e/**/*.mjs'],
        languageOptions: { globals: { document: 'readonly', window: 'readonly' } },
    },
);
