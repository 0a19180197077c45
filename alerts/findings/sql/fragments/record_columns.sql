finding_json, first_seen, last_seen, resolved_at, resolution, alert_status, last_sent_at
