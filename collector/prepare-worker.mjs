// Entry of a decode thread: a worker does not inherit tsx when the CLI registered it programmatically.
import { register } from 'tsx/esm/api';

register();
await import('./prepare-worker.ts');
