-- Globs (from the repository root) that a push-back of the source may write;
-- empty: anything under the mapping's repo_path. CI configuration is refused
-- whatever they say (packages/git-sources/src/push-paths.ts).
ALTER TABLE "git_sources" ADD COLUMN "push_paths" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
