/** What an owner can own; its own module so that the CLI's help names the kinds without loading the store. */
export const SUBJECT_KINDS = ['tool', 'agent', 'warning'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];
