"""Spans of the plain OpenTelemetry Python SDK, encoded by its own OTLP protobuf encoder (what an OpenTelemetry
Collector's Kafka exporter writes with encoding otlp_proto) and produced to Kafka by kafka-python, one message per
trace keyed by the trace id. Nothing of tooltrail's: no tooltrail.tenant on the resource.

usage: produce_spans.py BROKERS TOPIC TRACES
"""

import json
import sys

from kafka import KafkaProducer
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

brokers, topic, traces = sys.argv[1], sys.argv[2], int(sys.argv[3])

exporter = InMemorySpanExporter()
provider = TracerProvider(resource=Resource.create({"service.name": "py-kafka-agent"}))
provider.add_span_processor(SimpleSpanProcessor(exporter))
tracer = provider.get_tracer("py-kafka-agent")

producer = KafkaProducer(bootstrap_servers=brokers.split(","), acks="all")
spans = 0
for i in range(traces):
    exporter.clear()
    with tracer.start_as_current_span("invoke_agent py-kafka-agent"):
        with tracer.start_as_current_span("execute_tool search_accounts") as span:
            span.set_attribute("gen_ai.operation.name", "execute_tool")
            span.set_attribute("gen_ai.tool.name", "search_accounts")
            span.set_attribute("gen_ai.tool.call.id", f"py-call-{i}")
            span.set_attribute("gen_ai.tool.call.arguments", '{"owner":"nobody","api_key":"py-secret-42"}')
            span.set_attribute("tooltrail.effect", "read")
    finished = exporter.get_finished_spans()
    spans += len(finished)
    request = encode_spans(finished)
    key = format(finished[0].context.trace_id, "032x").encode()
    producer.send(topic, key=key, value=request.SerializeToString()).get(timeout=30)
producer.flush()
producer.close()
print(json.dumps({"messages": traces, "spans": spans}))
