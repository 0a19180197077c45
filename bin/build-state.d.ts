/** { built: dist/ has a build, current: that build is not older than any source beside it }. */
export function builtCliIsCurrent(): { built: boolean; current: boolean };
