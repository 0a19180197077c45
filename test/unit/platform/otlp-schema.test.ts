/**
 * platform/otlp's own schema (schema.ts) against OpenTelemetry's .proto files (Maven Central's
 * io.opentelemetry.proto:opentelemetry-proto, compiled by protobufjs; checked in with its source and hash:
 * testkit/otlp-reference.ts): every message and enum of ours is theirs,
 * with the same field numbers, types, repetition and oneofs, and the only fields of theirs we leave out are the two
 * the schema names. A new OTLP field in a message we use fails here until the schema decides about it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import protobufjs from 'protobufjs';
import { OTLP_TRACE_SCHEMA } from '../../../platform/otlp/schema.ts';
import {
  OTLP_PROTO_VERSION,
  type OtlpReference,
  otlpReference,
  REQUEST_TYPE,
} from '../../../testkit/otlp-reference.ts';

/** The fields of theirs that the schema leaves out, by message (see schema.ts). */
const LEFT_OUT: Record<string, string[]> = {
  'opentelemetry.proto.common.v1.AnyValue': ['stringValueStrindex'],
  'opentelemetry.proto.common.v1.KeyValue': ['keyStrindex'],
};

function all<T>(namespace: protobufjs.NamespaceBase, kind: new (...args: never[]) => T, found: T[] = []): T[] {
  for (const nested of namespace.nestedArray) {
    if (nested instanceof kind) found.push(nested);
    if (nested instanceof protobufjs.Namespace || nested instanceof protobufjs.Type) all(nested, kind, found);
  }
  return found;
}

/** A field as the wire and the shapes see it: number, type (full name for messages and enums), rule, oneof. */
function shape(field: protobufjs.Field): string {
  field.resolve();
  const type = field.resolvedType ? field.resolvedType.fullName.replace(/^\./, '') : field.type;
  return `${field.id} ${type}${field.repeated ? ' repeated' : ''}${field.partOf ? ` oneof ${field.partOf.name}` : ''}`;
}

/** Every message type a request or response holds, following fields from the two roots. */
function reachable(type: protobufjs.Type, found = new Set<string>()): Set<string> {
  const name = type.fullName.replace(/^\./, '');
  if (found.has(name)) return found;
  found.add(name);
  for (const field of type.fieldsArray) {
    field.resolve();
    if (field.resolvedType instanceof protobufjs.Type) reachable(field.resolvedType, found);
  }
  return found;
}

describe(`platform/otlp's schema against OpenTelemetry's .proto files (opentelemetry-proto ${OTLP_PROTO_VERSION})`, () => {
  let reference: OtlpReference;
  const ours = protobufjs.Root.fromJSON(OTLP_TRACE_SCHEMA);
  ours.resolveAll();
  before(async () => {
    reference = await otlpReference();
  });

  it('gives every field of every message the number, type, repetition and oneof OpenTelemetry gives it', () => {
    const types = all(ours, protobufjs.Type);
    assert.ok(types.length >= 15, `${types.length} messages`);
    for (const type of types) {
      const name = type.fullName.replace(/^\./, '');
      const theirs = reference.root.lookupType(name);
      for (const field of type.fieldsArray) {
        const their = theirs.fields[field.name];
        assert.ok(their, `${name}.${field.name} is an OTLP field`);
        assert.equal(shape(field), shape(their), `${name}.${field.name}`);
      }
      const missing = theirs.fieldsArray.map((f) => f.name).filter((f) => type.fields[f] === undefined);
      assert.deepEqual(missing, LEFT_OUT[name] ?? [], `${name}: OTLP fields the schema does not declare`);
      const oneofs = (t: protobufjs.Type) => t.oneofsArray.map((o) => `${o.name}: ${o.oneof.join(',')}`);
      assert.deepEqual(
        oneofs(type),
        oneofs(theirs).map((o) => o.replace(/,stringValueStrindex$/, '')),
        `${name} oneofs`,
      );
    }
  });

  it('gives every enum the values OpenTelemetry gives it', () => {
    const enums = all(ours, protobufjs.Enum);
    assert.deepEqual(enums.map((e) => e.name).sort(), ['SpanKind', 'StatusCode']);
    for (const e of enums) {
      assert.deepEqual({ ...e.values }, { ...reference.root.lookupEnum(e.fullName).values }, e.fullName);
    }
  });

  it('declares every message a trace export request or response holds', () => {
    for (const top of [REQUEST_TYPE, 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse']) {
      for (const name of reachable(reference.root.lookupType(top))) {
        assert.ok(ours.lookup(name) instanceof protobufjs.Type, `${name} (held by ${top}) is in the schema`);
      }
    }
  });
});
