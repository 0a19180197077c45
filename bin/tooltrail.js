#!/usr/bin/env node
// The sources are TypeScript run through tsx: no build step between a clone and a working CLI.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
