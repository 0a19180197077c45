-- The detector's rows ({{detector}}) as alert instances: tool and reason are labels, the rate the value.
SELECT tenant, tool_name AS tool, reason, rate AS value FROM (
{{detector}}
)
