import { readFileSync } from 'node:fs';
import { prepareMessages } from '../collector/prepare.ts';
import { decodeExportTraceServiceRequestChecked } from '../platform/otlp/index.ts';

const body = readFileSync('/tmp/case19411.bin');
const p = prepareMessages(body, 'protobuf', 't');
const bad = p.messages[0]!.value;
console.log(bad.length, bad.subarray(0, 140).toString('hex'));
const chk = decodeExportTraceServiceRequestChecked(body);
for (const rs of chk.request.resourceSpans)
  for (const ss of rs.scopeSpans)
    for (const s of ss.spans) {
      const enc = chk.encodedSpan(s);
      console.log(
        'span',
        Buffer.from(s.spanId ?? []).toString('hex'),
        enc ? Buffer.from(enc).toString('hex').slice(0, 200) : 'none',
        'attrs',
        JSON.stringify(s.attributes?.map((a) => a.key)),
      );
    }
