/** The emitter options from the ingest's configuration: the tool policy file read (and validated) once, at start. */
import { loadPolicyFile } from '../../platform/tool-policy-file.ts';
import type { IngestConfig } from '../config.ts';
import type { EmitterOptions } from './normalize.ts';

/** Throws the policy file's PolicyError (every problem with its key) before anything connects. */
export function emitterOptions(config: IngestConfig['emitters']): EmitterOptions {
  return {
    ...(config.policyFile !== undefined ? { policy: loadPolicyFile(config.policyFile) } : {}),
    ...(config.payloadHashKey !== undefined ? { payloadHashKey: config.payloadHashKey.reveal() } : {}),
  };
}
