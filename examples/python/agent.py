"""A Python agent's tool calls recorded for tooltrail with the plain OpenTelemetry SDK (no tooltrail package).

It reads the service accounts that have no owner (first page only: incomplete and empty), then marks the
control compliant on that evidence: the mutation tooltrail's detectors page for. One attribute is sent the way
Python makes it easy to get wrong, to show what the pipeline does with it.

    TOOLTRAIL_ENDPOINT=http://127.0.0.1:4318/v1/traces TOOLTRAIL_TOKEN=<token> python agent.py [session id]

Without TOOLTRAIL_TOKEN it sends no credential: `tooltrail up` without tokens stores it under tenant `default`.
"""

import os
import sys
import uuid

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

endpoint = os.environ.get("TOOLTRAIL_ENDPOINT", "http://127.0.0.1:4318/v1/traces")
token = os.environ.get("TOOLTRAIL_TOKEN")
headers = {"authorization": f"Bearer {token}"} if token else {}

provider = TracerProvider(resource=Resource.create({"service.name": "python-janitor"}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, headers=headers)))
tracer = provider.get_tracer("python-janitor", "1.0.0")

session_id = sys.argv[1] if len(sys.argv) > 1 else f"py-{uuid.uuid4().hex[:12]}"
seq = 0


def tool_span(tool_name, call_id, effect, attributes):
    """One tool call: the GenAI attributes every tool span carries, then the tooltrail contract."""
    global seq
    seq += 1
    span = tracer.start_span(f"execute_tool {tool_name}")
    span.set_attributes({
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool_name, "gen_ai.tool.call.id": call_id,
        "gen_ai.conversation.id": session_id, "gen_ai.agent.name": "python-janitor",
        "tooltrail.semconv.version": "1.3.0", "tooltrail.effect": effect, "tooltrail.session.sequence": seq,
        **attributes,
    })
    span.end()


# The read: the first page of a stale index, empty, with more pages to come. Its count goes out as a float (as
# Python arithmetic often gives; the contract says int): stored as 0 and flagged CONTRACT_ATTRIBUTE_COERCED.
accounts = []
tool_span("list_service_accounts", "read-1", "read", {
    "tooltrail.result.status": "partial", "tooltrail.result.complete": False,
    "tooltrail.result.reasons": ["MORE_PAGES_AVAILABLE"], "tooltrail.result.item_count": float(len(accounts)),
    "tooltrail.result.continuation": "next_cursor", "tooltrail.scope.resource": "service_accounts",
    "tooltrail.scope.snapshot": "snap-7",
})

# The mutation, with the evidence it relied on: the read above (by call id and snapshot).
tool_span("mark_control_compliant", "mut-1", "mutation", {
    "tooltrail.result.status": "complete", "tooltrail.result.complete": True,
    "tooltrail.scope.resource": "service_accounts", "tooltrail.mutation.basis": "absence",
    "tooltrail.mutation.target_count": 1, "tooltrail.mutation.evidence_call_ids": ["read-1"],
    "tooltrail.mutation.evidence_snapshots": ["snap-7"],
})

provider.shutdown()  # flushes the batch: the collector answered before this returns
print(f"session {session_id}: 2 tool calls sent to {endpoint}")
print(f"next: tooltrail findings --tenant {'<your tenant>' if token else 'default'}")
print(f"      tooltrail reconstruct --session {session_id}")
