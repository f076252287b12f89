// Types of eslint.config.mjs for the TypeScript files that import it (the lint test).
import type { Linter } from 'eslint';

export declare const exhaustiveSwitchRules: Linter.RulesRecord;
export declare const SOURCES: string[];
export declare const engineLayerRules: Linter.Config[];
export declare function typeCheckedConfig(files: string[], tsconfigRootDir: string): Linter.Config[];
declare const config: Linter.Config[];
export default config;
