// A git commit as the UI shows it: the short form (7 hex digits) in the text,
// the full one on hover and for screen readers. Used where an execution's
// `git_sha` (the commit whose sync produced its flow's revision) is shown.

/** The first 7 characters of a commit id, as git abbreviates it. */
export const shortSha = (sha: string): string => sha.slice(0, 7);

export function GitSha({ sha }: { sha: string }) {
  return (
    <code className="git-sha" title={sha} aria-label={`commit ${sha}`} data-testid="git-sha">
      {shortSha(sha)}
    </code>
  );
}
