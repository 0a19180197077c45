"""The same two scenarios, traced by traceloop-sdk (OpenLLMetry) decorators.

Usage: python traceloop_agent.py <first-page|complete> <session-id>
Env: TOOLTRAIL_ENDPOINT (full OTLP/HTTP URL ending in /v1/traces), TOOLTRAIL_TOKEN.
The "model" is a scripted loop, so the run is deterministic and contacts nothing but the exporter's endpoint.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

# traceloop-sdk reads these at init: no metrics or logs exporters, so only the trace endpoint is contacted.
# TRACELOOP_TELEMETRY is no longer read by 0.62.4 (it has no telemetry client); kept for older versions.
os.environ["TRACELOOP_TELEMETRY"] = "false"
os.environ["TRACELOOP_TRACING_ENABLED"] = "true"
os.environ["TRACELOOP_METRICS_ENABLED"] = "false"
os.environ["TRACELOOP_LOGGING_ENABLED"] = "false"
os.environ["TRACELOOP_TRACE_CONTENT"] = "true"
os.environ["TRACELOOP_SUPPRESS_WARNINGS"] = "true"
for inherited in ("TRACELOOP_BASE_URL", "TRACELOOP_API_KEY", "TRACELOOP_HEADERS"):
    os.environ.pop(inherited, None)

from collections.abc import Sequence  # noqa: E402

from opentelemetry import trace  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SpanExportResult  # noqa: E402
from traceloop.sdk import Traceloop  # noqa: E402
from traceloop.sdk.decorators import agent, tool, workflow  # noqa: E402

SCENARIOS: dict[str, dict[str, Any]] = {
    # The agent deletes an id that list_accounts never returned.
    "first-page": {
        "page": {"accounts": [{"id": "acc-1"}, {"id": "acc-2"}], "next_cursor": "c2"},
        "delete": "acc-9",
    },
    "complete": {
        "page": {"accounts": [{"id": "acc-1"}, {"id": "acc-2"}], "has_more": False},
        "delete": "acc-1",
    },
}

scenario: dict[str, Any] = {}
sent = [0]
_otlp_export = OTLPSpanExporter.export


def _counting_export(self: OTLPSpanExporter, spans: Sequence[ReadableSpan]) -> SpanExportResult:
    """Counts spans the endpoint accepted; Traceloop builds its exporter itself, so the class is wrapped."""
    result = _otlp_export(self, spans)
    if result == SpanExportResult.SUCCESS:
        sent[0] += len(spans)
    return result


OTLPSpanExporter.export = _counting_export  # type: ignore[method-assign]


@tool(name="list_accounts")
def list_accounts(cursor: str | None = None) -> dict[str, Any]:
    """List customer accounts, one page at a time."""
    return scenario["page"]


@tool(name="delete_account")
def delete_account(account_id: str) -> str:
    """Delete one customer account."""
    return f"deleted {account_id}"


@agent(name="accounts_agent")
def accounts_agent(prompt: str) -> str:
    # Scripted stand-in for a model's tool choices: list, then delete the scenario's id, then answer.
    list_accounts()
    delete_account(account_id=scenario["delete"])
    return f"Deleted account {scenario['delete']}."


@workflow(name="accounts_cleanup")
def accounts_cleanup(session_id: str) -> str:
    Traceloop.set_association_properties({"session_id": session_id})
    return accounts_agent("Clean up the unused accounts.")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in SCENARIOS:
        print(f"usage: {sys.argv[0]} <{'|'.join(SCENARIOS)}> <session-id>", file=sys.stderr)
        return 2
    scenario.update(SCENARIOS[sys.argv[1]])
    session_id = sys.argv[2]

    endpoint = os.environ["TOOLTRAIL_ENDPOINT"]
    # Traceloop appends /v1/traces itself to an http(s) base URL.
    base = endpoint[: -len("/v1/traces")] if endpoint.endswith("/v1/traces") else endpoint
    # Traceloop.init prints coloured banners to stdout; keep stdout to the `sent N spans` line.
    with contextlib.redirect_stdout(sys.stderr):
        Traceloop.init(
            app_name="tooltrail-e2e-traceloop",
            api_endpoint=base,
            headers={"Authorization": f"Bearer {os.environ.get('TOOLTRAIL_TOKEN', '')}"},
            disable_batch=True,
            telemetry_enabled=False,
        )

    output = accounts_cleanup(session_id)

    provider = trace.get_tracer_provider()
    if isinstance(provider, TracerProvider):
        provider.force_flush()
        provider.shutdown()
    print(f"agent output: {output}", file=sys.stderr)
    print(f"sent {sent[0]} spans")
    return 0


if __name__ == "__main__":
    sys.exit(main())
