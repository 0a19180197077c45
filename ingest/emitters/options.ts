/** The emitter options from the ingest's configuration: the tool policy file read (and validated) once, at start. */
import { PolicyError } from '../../contract/index.ts';
import { loadPolicyFile } from '../../platform/tool-policy-file.ts';
import { type IngestConfig, IngestConfigError } from '../config.ts';
import type { EmitterOptions } from './normalize.ts';

/** A bad policy file is an IngestConfigError naming every bad key, thrown before anything connects. */
export function emitterOptions(config: IngestConfig['emitters']): EmitterOptions {
  let policy: EmitterOptions['policy'];
  try {
    if (config.policyFile !== undefined) policy = loadPolicyFile(config.policyFile);
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    throw new IngestConfigError(`invalid ingest configuration: ingest.emitters.policyFile: ${err.message}`);
  }
  return {
    ...(policy !== undefined ? { policy } : {}),
    ...(config.payloadHashKey !== undefined ? { payloadHashKey: config.payloadHashKey.reveal() } : {}),
  };
}
