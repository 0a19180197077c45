/** The environment variables that hold tokens: their own module so the CLI's help names them without loading auth. */
export const API_TOKENS_ENV = 'TOOLTRAIL_API_TOKENS';
/** The one token a CLI user presents (like `--token`). */
export const API_TOKEN_ENV = 'TOOLTRAIL_API_TOKEN';
/** The collector's write tokens, same format. */
export const COLLECTOR_TOKENS_ENV = 'TOOLTRAIL_COLLECTOR_TOKENS';
