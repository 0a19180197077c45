/**
 * OpenTelemetry's own OTLP .proto files, from Maven Central's `io.opentelemetry.proto:opentelemetry-proto` jar: the
 * reference platform/otlp's schema, its general decoding and its streaming reader are tested against.
 *
 * The unit tests read them compiled by protobufjs (its JSON descriptor), from `reference/otlp-proto-trace.json`,
 * checked in with its source (the artifact, the jar's SHA-256, each .proto's SHA-256) and its own SHA-256, checked on
 * every load: they need no Maven and no network. The jar itself is never committed.
 * `test/integration/platform/otlp-reference-source.test.ts` downloads the jar with Maven (once, into
 * `<services home>/cache/opentelemetry-proto-<version>/`, as the Kafka jars are), compiles it again and holds the
 * checked-in file to it. For another version: change `OTLP_PROTO_VERSION` and `JAR_SHA256`, then
 * `node --import tsx testkit/otlp-reference.ts --write`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import protobufjs from 'protobufjs';
import type { ExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { services } from './services.ts';

export const OTLP_PROTO_VERSION = '1.11.0-alpha';
const ARTIFACT = `io.opentelemetry.proto:opentelemetry-proto:${OTLP_PROTO_VERSION}`;
const JAR = `opentelemetry-proto-${OTLP_PROTO_VERSION}.jar`;
const JAR_SHA256 = 'a5f47de1368ca82aec597e74d0be6969763707483da6672471d703d454d65b5b';
const DOWNLOAD_TIMEOUT_MS = 300_000;

/** The files of the messages a trace export uses. */
export const OTLP_TRACE_PROTOS: readonly string[] = [
  'common/v1/common.proto',
  'resource/v1/resource.proto',
  'trace/v1/trace.proto',
  'collector/trace/v1/trace_service.proto',
].map((file) => `opentelemetry/proto/${file}`);

export const REQUEST_TYPE = 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The checked-in reference: protobufjs' JSON descriptor of `OTLP_TRACE_PROTOS`, with where it came from. */
export const REFERENCE_FILE = fileURLToPath(new URL('./reference/otlp-proto-trace.json', import.meta.url));

export interface ReferenceFile {
  source: {
    artifact: string;
    jar: string;
    jarSha256: string;
    /** Each .proto file of the jar compiled, and its SHA-256. */
    protos: Record<string, string>;
    regenerate: string;
  };
  /** SHA-256 of `JSON.stringify(descriptor)`. */
  descriptorSha256: string;
  descriptor: protobufjs.INamespace;
}

/** The jar in the cache, downloaded first if absent (into a temporary folder renamed in place: tests run at once). */
export function ensureJar(): string {
  const cache = join(services.home, 'cache');
  const dir = join(cache, `opentelemetry-proto-${OTLP_PROTO_VERSION}`);
  const jar = join(dir, JAR);
  if (!existsSync(jar)) {
    mkdirSync(cache, { recursive: true });
    const download = mkdtempSync(`${dir}.download-`);
    try {
      const mvn = spawnSync(
        'mvn',
        ['-q', '-B', 'dependency:copy', `-Dartifact=${ARTIFACT}`, `-DoutputDirectory=${download}`],
        { encoding: 'utf8', timeout: DOWNLOAD_TIMEOUT_MS },
      );
      if (mvn.status !== 0 || !existsSync(join(download, JAR))) {
        const why = mvn.error ? mvn.error.message : `mvn exited ${mvn.status}`;
        const output = `${mvn.stdout ?? ''}${mvn.stderr ?? ''}`.trim().split('\n').slice(-5).join(' | ');
        throw new Error(
          `could not download ${ARTIFACT} from Maven Central (${why}; .ci/run installs maven): ${output}`,
        );
      }
      try {
        renameSync(download, dir);
      } catch (err) {
        if (!existsSync(jar)) throw err; // else another test file downloaded it meanwhile
      }
    } finally {
      rmSync(download, { recursive: true, force: true });
    }
  }
  const found = sha256(readFileSync(jar));
  if (found !== JAR_SHA256) {
    throw new Error(`${jar}: SHA-256 ${found}, expected ${JAR_SHA256} (remove the file to download it again)`);
  }
  return jar;
}

export interface OtlpReference {
  /** The trace messages of OpenTelemetry's .proto files, compiled by protobufjs (lowerCamelCase field names). */
  root: protobufjs.Root;
  /** protobufjs' decoding of an ExportTraceServiceRequest with OpenTelemetry's schema, as protobufjs' messages. */
  decode(bytes: Uint8Array): protobufjs.Message;
  /**
   * The same as plain objects in platform/otlp's shapes (64-bit values as decimal strings, absent fields with their
   * proto3 defaults, a oneof's absent members absent);
   * throws on what it refuses, strings that are not valid UTF-8 included (proto3 strings are verified).
   */
  decodeRequest(bytes: Uint8Array): ExportTraceServiceRequest;
  /**
   * One canonical form of a decoded request, ours or the reference's, for comparing them: every field of the
   * reference's but a oneof's absent members, defaults filled in, 64-bit values as decimal strings, bytes as base64.
   */
  canonical(request: object): unknown;
}

/** A 64-bit value as protobufjs decodes it (a long.js Long: its toString honours its sign). */
const isLong = (v: unknown): v is { low: number; high: number; toString(): string } =>
  typeof v === 'object' && v !== null && 'low' in v && 'high' in v;

/**
 * A decoded message (the reference's or platform/otlp's) as a plain object of the reference's fields: a oneof's
 * absent members left out, every other absent field given its proto3 default, Longs as decimal strings, bytes as
 * they are or as base64. protobufjs' own toObject leaves the defaults out below a oneof.
 */
function plain(type: protobufjs.Type, message: Record<string, unknown>, base64: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    if (field.partOf && (!Object.hasOwn(message, field.name) || message[field.name] == null)) continue;
    const value = message[field.name] ?? (field.repeated ? [] : field.typeDefault);
    const nested = field.resolvedType instanceof protobufjs.Type ? field.resolvedType : undefined;
    const one = (v: unknown): unknown => {
      if (nested) return v == null ? null : plain(nested, v as Record<string, unknown>, base64);
      if (isLong(v)) return v.toString();
      if (base64 && v instanceof Uint8Array) return Buffer.from(v).toString('base64');
      return v;
    };
    out[field.name] = Array.isArray(value) ? value.map(one) : one(value);
  }
  return out;
}

/** The jar's trace .proto files compiled from their text, and each one's SHA-256. */
async function compileJar(): Promise<{ root: protobufjs.Root; protos: Record<string, string> }> {
  const jar = ensureJar();
  const zip = await JSZip.loadAsync(readFileSync(jar));
  const root = new protobufjs.Root();
  const protos: Record<string, string> = {};
  for (const name of OTLP_TRACE_PROTOS) {
    const file = zip.file(name);
    if (file === null) throw new Error(`${jar} holds no ${name}`);
    const text = await file.async('string');
    protos[name] = sha256(text);
    protobufjs.parse(text, root);
  }
  root.resolveAll();
  return { root, protos };
}

/** The reference file as the jar yields it (Maven downloads the jar first when it is not in the cache). */
export async function referenceFromJar(): Promise<ReferenceFile> {
  const { root, protos } = await compileJar();
  const descriptor = root.toJSON();
  return {
    source: {
      artifact: ARTIFACT,
      jar: JAR,
      jarSha256: JAR_SHA256,
      protos,
      regenerate: 'node --import tsx testkit/otlp-reference.ts --write',
    },
    descriptorSha256: sha256(JSON.stringify(descriptor)),
    descriptor,
  };
}

/** The checked-in reference file, its hash checked: an edit by hand, or a file cut short, fails here. */
export function readReferenceFile(path = REFERENCE_FILE): ReferenceFile {
  const file = JSON.parse(readFileSync(path, 'utf8')) as ReferenceFile;
  const found = sha256(JSON.stringify(file.descriptor));
  if (found !== file.descriptorSha256) {
    throw new Error(
      `${path}: its descriptor's SHA-256 is ${found}, the file says ${file.descriptorSha256}: regenerate it with ${file.source?.regenerate}`,
    );
  }
  if (file.source.jarSha256 !== JAR_SHA256 || file.source.artifact !== ARTIFACT) {
    throw new Error(
      `${path} comes from ${file.source.artifact} (${file.source.jarSha256}), not ${ARTIFACT}: regenerate it`,
    );
  }
  return file;
}

/** The reference compiled from the jar's .proto text, as the checked-in descriptor was made. */
export async function referenceFromProtoText(): Promise<OtlpReference> {
  return referenceOfRoot((await compileJar()).root);
}

/** A reference built from a protobufjs descriptor (the checked-in one). */
export function referenceOf(descriptor: protobufjs.INamespace): OtlpReference {
  const root = protobufjs.Root.fromJSON(descriptor);
  root.resolveAll();
  return referenceOfRoot(root);
}

function referenceOfRoot(root: protobufjs.Root): OtlpReference {
  const request = root.lookupType(REQUEST_TYPE);
  return {
    root,
    decode: (bytes) => request.decode(bytes),
    decodeRequest: (bytes) =>
      plain(request, request.decode(bytes) as never, false) as unknown as ExportTraceServiceRequest,
    canonical: (message) => plain(request, message as Record<string, unknown>, true),
  };
}

let loaded: Promise<OtlpReference> | undefined;

/** The reference, from the checked-in descriptor (read once per process). */
export function otlpReference(): Promise<OtlpReference> {
  loaded ??= Promise.resolve().then(() => referenceOf(readReferenceFile().descriptor));
  return loaded;
}

// `node --import tsx testkit/otlp-reference.ts --write`: the reference file again, from the jar.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  const file = await referenceFromJar();
  writeFileSync(REFERENCE_FILE, `${JSON.stringify(file, null, 2)}\n`);
  console.log(`wrote ${REFERENCE_FILE} from ${file.source.artifact} (descriptor ${file.descriptorSha256})`);
}
