/** A configuration the user can fix, named by its key; its own module so the CLI can recognise one before loading any config. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
