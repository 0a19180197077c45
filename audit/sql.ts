/** Loads the `.sql` files next to the code; values (and the database, as an Identifier) are always bound. */
import { sqlFiles } from '../platform/sql-files.ts';

export const sqlFile = sqlFiles(new URL('./sql/', import.meta.url));
