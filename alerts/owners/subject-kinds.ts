/** What an owner can own; its own module so that the CLI's help names the kinds without loading the store. */
/** `audit`: the owner of a tenant's Merkle log (subject = the log, or `*` for every log), paged by its alerts. */
export const SUBJECT_KINDS = ['tool', 'agent', 'warning', 'audit'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];
