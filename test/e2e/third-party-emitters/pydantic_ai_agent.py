"""A pydantic-ai agent with a scripted model, traced by pydantic-ai's own OpenTelemetry instrumentation.

Usage: python pydantic_ai_agent.py <first-page|complete|all-pages> <session-id>
Env: TOOLTRAIL_ENDPOINT (full OTLP/HTTP URL ending in /v1/traces), TOOLTRAIL_TOKEN.
The run is deterministic: FunctionModel scripts every model turn, so there is no network but the exporter's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

FIRST_PAGE = {"accounts": [{"id": "acc-1"}, {"id": "acc-2"}], "next_cursor": "c2"}
SCENARIOS: dict[str, dict[str, Any]] = {
    # The model deletes an id that the first page never returned, without reading on.
    "first-page": {"pages": {None: FIRST_PAGE}, "cursors": [None], "delete": "acc-9"},
    "complete": {
        "pages": {None: {"accounts": [{"id": "acc-1"}, {"id": "acc-2"}], "has_more": False}},
        "cursors": [None],
        "delete": "acc-1",
    },
    # A careful model pages to the end, cursor after cursor, then deletes an id of the last page.
    "all-pages": {
        "pages": {None: FIRST_PAGE, "c2": {"accounts": [{"id": "acc-3"}], "has_more": False}},
        "cursors": [None, "c2"],
        "delete": "acc-3",
    },
}


class CountingExporter(SpanExporter):
    """Delegates to the OTLP exporter and counts the spans it accepted, for the `sent N spans` line."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.sent = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        if result == SpanExportResult.SUCCESS:
            self.sent += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def scripted_model(cursors: list[str | None], delete_id: str) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        n = len(returns)
        if n < len(cursors):
            args = {} if cursors[n] is None else {"cursor": cursors[n]}
            return ModelResponse(parts=[ToolCallPart("list_accounts", args, tool_call_id=f"call_list_{n + 1}")])
        if n == len(cursors):
            return ModelResponse(
                parts=[ToolCallPart("delete_account", {"account_id": delete_id}, tool_call_id="call_delete_1")]
            )
        return ModelResponse(parts=[TextPart(f"Deleted account {delete_id}.")])

    return FunctionModel(respond, model_name="scripted")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in SCENARIOS:
        print(f"usage: {sys.argv[0]} <{'|'.join(SCENARIOS)}> <session-id>", file=sys.stderr)
        return 2
    scenario, session_id = SCENARIOS[sys.argv[1]], sys.argv[2]

    exporter = CountingExporter(
        OTLPSpanExporter(
            endpoint=os.environ["TOOLTRAIL_ENDPOINT"],
            headers={"Authorization": f"Bearer {os.environ.get('TOOLTRAIL_TOKEN', '')}"},
        )
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "tooltrail-e2e-pydantic-ai"}))
    # Batched, as applications export (pydantic-ai/logfire's default): a run's spans leave in one request.
    provider.add_span_processor(BatchSpanProcessor(exporter))

    # include_content=True (the default, stated for clarity) records tool arguments and results on tool spans.
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider, include_content=True))
    agent = Agent(scripted_model(scenario["cursors"], scenario["delete"]), name="accounts_agent")

    @agent.tool_plain
    def list_accounts(cursor: str | None = None) -> dict[str, Any]:
        """List customer accounts, one page at a time."""
        return scenario["pages"][cursor]

    @agent.tool_plain
    def delete_account(account_id: str) -> str:
        """Delete one customer account."""
        return f"deleted {account_id}"

    # pydantic-ai's own session key: conversation_id becomes gen_ai.conversation.id on the agent run span.
    result = agent.run_sync("Clean up the unused accounts.", conversation_id=session_id)

    provider.force_flush()
    provider.shutdown()
    print(f"agent output: {result.output}", file=sys.stderr)
    print(f"sent {exporter.sent} spans")
    return 0


if __name__ == "__main__":
    sys.exit(main())
